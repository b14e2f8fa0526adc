/**
 * A tiny fake BigQuery v2 for the examples: jobs.query, jobs.insert (query jobs), jobs.get and
 * jobs.getQueryResults, answering like the real API for SELECTs of literals, e.g.
 * `SELECT 17 AS answer, SESSION_USER() AS user`. Queries run at once, so every job is DONE.
 */
import { randomBytes } from "node:crypto";
import { type ApiRoute, sendApiError } from "./api-route.js";
import { API_METHODS } from "./api-scopes.js";
import type { RequestContext } from "./context.js";
import { parseJson, readBody, sendJson } from "./http.js";
import type { EmulatorState } from "./state.js";
import type { AccessTokenInfo } from "./types.js";

const LOCATION = "US";
const MAX_QUERY_CHARS = 10_000;
/** Jobs kept per emulator; the oldest are forgotten first. */
const MAX_JOBS = 1_000;

// ---------------------------------------------------------------- the query language

type FieldType = "INTEGER" | "FLOAT" | "STRING" | "BOOLEAN";

/** One result column: BigQuery sends every value as a string (or null). */
export interface QueryColumn {
  name: string;
  type: FieldType;
  value: string | null;
}

/** A query the fake cannot answer; the message carries BigQuery's `[line:column]`. */
export class QueryError extends Error {}

interface Token {
  kind: "number" | "string" | "word" | "punct";
  text: string;
  offset: number;
}

const KINDS = ["number", "string", "word", "punct"] as const;
/** Whitespace and comments. */
const SKIPPED = /(?:\s|--[^\n]*|#[^\n]*|\/\*[\s\S]*?\*\/)*/;
const TOKEN =
  /(?:(?<number>\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|(?<string>'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")|(?<word>[A-Za-z_]\w*|`[^`\n]+`)|(?<punct>[(),;*+-]))/;
const INT64_MAX = 2n ** 63n - 1n;
/** Words that end a select list rather than name a column. */
const CLAUSES = new Set(["FROM", "WHERE", "GROUP", "ORDER", "LIMIT", "UNION"]);

/** `[line:column]` of an offset, as BigQuery reports positions. */
function position(sql: string, offset: number): string {
  const before = sql.slice(0, offset);
  return `[${before.split("\n").length}:${offset - before.lastIndexOf("\n")}]`;
}

function tokenize(sql: string): Token[] {
  const skip = new RegExp(SKIPPED.source, "y");
  const pattern = new RegExp(TOKEN.source, "y");
  const tokens: Token[] = [];
  for (let offset = 0; ; offset = pattern.lastIndex) {
    skip.lastIndex = offset;
    skip.exec(sql);
    offset = skip.lastIndex;
    if (offset === sql.length) return tokens;
    pattern.lastIndex = offset;
    const groups = pattern.exec(sql)?.groups;
    const kind = KINDS.find((k) => groups?.[k] !== undefined);
    if (!groups || !kind) throw new QueryError(`Syntax error: Illegal input character at ${position(sql, offset)}`);
    tokens.push({ kind, text: groups[kind] ?? "", offset });
  }
}

function unquote(literal: string): string {
  return literal.slice(1, -1).replace(/\\(.)/g, (_, c: string) => ({ n: "\n", t: "\t", r: "\r" })[c] ?? c);
}

/** Walks the tokens of one query. */
class Cursor {
  private at = 0;
  private readonly tokens: Token[];

  constructor(private readonly sql: string) {
    this.tokens = tokenize(sql);
  }

  peek(): Token | undefined {
    return this.tokens[this.at];
  }

  next(): Token | undefined {
    return this.tokens[this.at++];
  }

  isWord(word: string): boolean {
    const token = this.peek();
    return token?.kind === "word" && token.text.toUpperCase() === word;
  }

  expect(text: string): void {
    if (this.peek()?.text !== text) this.fail(`Expected "${text}" but got ${this.describe()}`);
    this.at += 1;
  }

  describe(): string {
    const token = this.peek();
    return token ? `"${token.text}"` : "end of script";
  }

  fail(what: string, token = this.peek()): never {
    throw new QueryError(
      token ? `Syntax error: ${what} at ${position(this.sql, token.offset)}` : `Syntax error: Unexpected end of script`,
    );
  }

  where(token: Token): string {
    return position(this.sql, token.offset);
  }
}

/**
 * Evaluates `SELECT expr [[AS] alias], ...` where expr is a number, a string, TRUE, FALSE, NULL or
 * SESSION_USER() (the caller's e-mail, as in BigQuery). Anything else is a QueryError.
 */
export function evaluateQuery(sql: string, sessionUser: string): QueryColumn[] {
  const cursor = new Cursor(sql);
  if (!cursor.isWord("SELECT")) cursor.fail(`Expected "SELECT" but got ${cursor.describe()}`);
  cursor.next();
  const columns: QueryColumn[] = [];
  do {
    const column = expression(cursor, sessionUser);
    const explicit = cursor.isWord("AS") && cursor.next() !== undefined;
    const alias = cursor.peek();
    if (explicit && alias?.kind !== "word") cursor.fail(`Expected an alias but got ${cursor.describe()}`);
    if (alias?.kind === "word" && (explicit || !CLAUSES.has(alias.text.toUpperCase()))) {
      column.name = alias.text.replace(/^`|`$/g, "");
      cursor.next();
    }
    columns.push({ ...column, name: column.name || `f${columns.length}_` });
  } while (cursor.peek()?.text === "," && cursor.next());
  if (cursor.peek()?.text === ";") cursor.next();
  const rest = cursor.peek();
  if (rest && cursor.isWord("FROM")) {
    throw new QueryError(
      `The cred-auth emulator's BigQuery has no tables; it answers SELECTs of literals and SESSION_USER() only (FROM at ${cursor.where(rest)})`,
    );
  }
  if (rest) cursor.fail(`Unexpected ${cursor.describe()}`);
  return columns;
}

function expression(cursor: Cursor, sessionUser: string): QueryColumn {
  const token = cursor.next();
  if (!token) return cursor.fail("Unexpected end of script");
  const upper = token.text.toUpperCase();
  if (token.text === "-" || token.text === "+") {
    const operand = expression(cursor, sessionUser);
    if (operand.value === null || (operand.type !== "INTEGER" && operand.type !== "FLOAT"))
      cursor.fail(`No matching signature for operator ${token.text}`, token);
    if (token.text === "+") return operand;
    return { ...operand, value: operand.value.startsWith("-") ? operand.value.slice(1) : `-${operand.value}` };
  }
  if (token.kind === "number") {
    if (!/^\d+$/.test(token.text)) return { name: "", type: "FLOAT", value: String(Number(token.text)) };
    const value = BigInt(token.text);
    if (value > INT64_MAX) throw new QueryError(`Invalid integer literal: ${token.text} at ${cursor.where(token)}`);
    return { name: "", type: "INTEGER", value: value.toString() };
  }
  if (token.kind === "string") return { name: "", type: "STRING", value: unquote(token.text) };
  if (upper === "TRUE" || upper === "FALSE") return { name: "", type: "BOOLEAN", value: upper.toLowerCase() };
  if (upper === "NULL") return { name: "", type: "INTEGER", value: null };
  if (upper === "SESSION_USER") {
    cursor.expect("(");
    cursor.expect(")");
    return { name: "", type: "STRING", value: sessionUser };
  }
  if (token.kind === "word") throw new QueryError(`Unrecognized name: ${token.text} at ${cursor.where(token)}`);
  return cursor.fail(`Unexpected "${token.text}"`, token);
}

// ---------------------------------------------------------------- jobs

interface QueryJob {
  projectId: string;
  jobId: string;
  query: string;
  user: string;
  columns: QueryColumn[];
  createdAt: number;
}

const jobsByEmulator = new WeakMap<EmulatorState, Map<string, QueryJob>>();

function jobsOf(state: EmulatorState): Map<string, QueryJob> {
  let jobs = jobsByEmulator.get(state);
  if (!jobs) {
    jobs = new Map();
    jobsByEmulator.set(state, jobs);
  }
  return jobs;
}

function remember(state: EmulatorState, job: QueryJob): void {
  const jobs = jobsOf(state);
  jobs.set(`${job.projectId}\n${job.jobId}`, job);
  if (jobs.size > MAX_JOBS) jobs.delete(jobs.keys().next().value ?? "");
}

function jobReference(job: QueryJob): Record<string, string> {
  return { projectId: job.projectId, jobId: job.jobId, location: LOCATION };
}

function resultFields(job: QueryJob): Record<string, unknown> {
  return {
    schema: { fields: job.columns.map(({ name, type }) => ({ name, type, mode: "NULLABLE" })) },
    jobReference: jobReference(job),
    totalRows: "1",
    rows: [{ f: job.columns.map(({ value }) => ({ v: value })) }],
    totalBytesProcessed: "0",
    jobComplete: true,
    cacheHit: false,
  };
}

function jobResource(ctx: RequestContext, job: QueryJob): Record<string, unknown> {
  const id = `${job.projectId}:${LOCATION}.${job.jobId}`;
  const time = String(job.createdAt);
  return {
    kind: "bigquery#job",
    etag: Buffer.from(id).toString("base64").slice(0, 24),
    id,
    selfLink: `${ctx.state.baseUrl}/bigquery/v2/projects/${encodeURIComponent(job.projectId)}/jobs/${encodeURIComponent(job.jobId)}?location=${LOCATION}`,
    user_email: job.user,
    configuration: { query: { query: job.query, useLegacySql: false, priority: "INTERACTIVE" }, jobType: "QUERY" },
    jobReference: jobReference(job),
    statistics: {
      creationTime: time,
      startTime: time,
      endTime: time,
      totalBytesProcessed: "0",
      query: { totalBytesProcessed: "0", totalBytesBilled: "0", cacheHit: false, statementType: "SELECT" },
    },
    status: { state: "DONE" },
  };
}

/** Reads a JSON object body; sends a 400 and returns undefined when it is not one. */
async function readObject(ctx: RequestContext): Promise<Record<string, unknown> | undefined> {
  const text = await readBody(ctx.req);
  let body: unknown;
  try {
    body = parseJson(text);
  } catch {
    body = undefined;
  }
  if (body !== null && typeof body === "object" && !Array.isArray(body)) return body as Record<string, unknown>;
  sendApiError(ctx, 400, "INVALID_ARGUMENT", "Invalid JSON payload received. Expected an object.", "parseError");
  return undefined;
}

/** Runs `query` as `caller`; sends BigQuery's 400 and returns undefined when it cannot. */
function runQuery(
  ctx: RequestContext,
  caller: AccessTokenInfo,
  projectId: string,
  query: unknown,
  jobId?: unknown,
): QueryJob | undefined {
  if (typeof query !== "string" || query.trim() === "") {
    sendApiError(ctx, 400, "INVALID_ARGUMENT", "Required parameter is missing: query", "required");
    return undefined;
  }
  if (query.length > MAX_QUERY_CHARS) {
    sendApiError(ctx, 400, "INVALID_ARGUMENT", "The query is too large for the cred-auth emulator.", "invalidQuery");
    return undefined;
  }
  try {
    const columns = evaluateQuery(query, caller.account);
    const id =
      typeof jobId === "string" && /^[A-Za-z0-9_-]{1,1024}$/.test(jobId)
        ? jobId
        : `job_${randomBytes(12).toString("base64url")}`;
    const job = { projectId, jobId: id, query, user: caller.account, columns, createdAt: Date.now() };
    remember(ctx.state, job);
    return job;
  } catch (error) {
    if (!(error instanceof QueryError)) throw error;
    sendApiError(ctx, 400, "INVALID_ARGUMENT", error.message, "invalidQuery");
    return undefined;
  }
}

function findJob(ctx: RequestContext, projectId: string, jobId: string): QueryJob | undefined {
  const job = jobsOf(ctx.state).get(`${projectId}\n${jobId}`);
  if (!job) sendApiError(ctx, 404, "NOT_FOUND", `Not found: Job ${projectId}:${LOCATION}.${jobId}`, "notFound");
  return job;
}

const projectOf = (match: RegExpExecArray): string => decodeURIComponent(match[1] ?? "");
const jobIdOf = (match: RegExpExecArray): string => decodeURIComponent(match[2] ?? "");

/** jobs.query: POST /bigquery/v2/projects/{projectId}/queries */
async function jobsQuery(ctx: RequestContext, caller: AccessTokenInfo, match: RegExpExecArray): Promise<void> {
  const body = await readObject(ctx);
  if (!body) return;
  if (body.useLegacySql === true) return refuseLegacySql(ctx);
  const job = runQuery(ctx, caller, projectOf(match), body.query);
  if (job) sendJson(ctx.res, 200, { kind: "bigquery#queryResponse", ...resultFields(job) });
}

/** BigQuery's answer to legacy SQL, which the emulator does not speak. */
function refuseLegacySql(ctx: RequestContext): void {
  sendApiError(
    ctx,
    400,
    "INVALID_ARGUMENT",
    "The cred-auth emulator's BigQuery speaks GoogleSQL only: set useLegacySql to false.",
    "invalidQuery",
  );
}

/** jobs.insert for query jobs: POST /bigquery/v2/projects/{projectId}/jobs */
async function jobsInsert(ctx: RequestContext, caller: AccessTokenInfo, match: RegExpExecArray): Promise<void> {
  const body = await readObject(ctx);
  if (!body) return;
  const configuration = body.configuration as { query?: { query?: unknown; useLegacySql?: unknown } } | undefined;
  if (!configuration?.query) {
    sendApiError(ctx, 400, "INVALID_ARGUMENT", "The cred-auth emulator's BigQuery runs query jobs only.", "invalid");
    return;
  }
  if (configuration.query.useLegacySql === true) return refuseLegacySql(ctx);
  const reference = body.jobReference as { jobId?: unknown } | undefined;
  const projectId = projectOf(match);
  if (typeof reference?.jobId === "string" && jobsOf(ctx.state).has(`${projectId}\n${reference.jobId}`)) {
    sendApiError(
      ctx,
      409,
      "ALREADY_EXISTS",
      `Already Exists: Job ${projectId}:${LOCATION}.${reference.jobId}`,
      "duplicate",
    );
    return;
  }
  const job = runQuery(ctx, caller, projectId, configuration.query.query, reference?.jobId);
  if (job) sendJson(ctx.res, 200, jobResource(ctx, job));
}

/** jobs.get: GET /bigquery/v2/projects/{projectId}/jobs/{jobId} */
function jobsGet(ctx: RequestContext, _caller: AccessTokenInfo, match: RegExpExecArray): void {
  const job = findJob(ctx, projectOf(match), jobIdOf(match));
  if (job) sendJson(ctx.res, 200, jobResource(ctx, job));
}

/** jobs.getQueryResults: GET /bigquery/v2/projects/{projectId}/queries/{jobId} */
function jobsGetQueryResults(ctx: RequestContext, _caller: AccessTokenInfo, match: RegExpExecArray): void {
  const job = findJob(ctx, projectOf(match), jobIdOf(match));
  if (job) sendJson(ctx.res, 200, { kind: "bigquery#getQueryResultsResponse", etag: "AAAA", ...resultFields(job) });
}

const SEGMENT = "([^/]+)";
const PROJECT = `^/bigquery/v2/projects/${SEGMENT}`;

/** BigQuery's routes, listed in apis.ts's API_ROUTES. */
export const BIGQUERY_ROUTES: ApiRoute[] = [
  {
    method: "POST",
    path: new RegExp(`${PROJECT}/queries/?$`),
    ...API_METHODS["bigquery.jobs.query"],
    handle: jobsQuery,
  },
  {
    method: "GET",
    path: new RegExp(`${PROJECT}/queries/${SEGMENT}$`),
    ...API_METHODS["bigquery.jobs.getQueryResults"],
    handle: jobsGetQueryResults,
  },
  {
    method: "POST",
    path: new RegExp(`${PROJECT}/jobs/?$`),
    ...API_METHODS["bigquery.jobs.insert"],
    handle: jobsInsert,
  },
  {
    method: "GET",
    path: new RegExp(`${PROJECT}/jobs/${SEGMENT}$`),
    ...API_METHODS["bigquery.jobs.get"],
    handle: jobsGet,
  },
];
