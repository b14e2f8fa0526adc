/**
 * A simulated browser for the emulator's consent page: what a person does, over plain HTTP.
 * It understands only the emulator's own markup (one form, hidden inputs, account radios).
 */

export interface BrowserResult {
  /** Status of the last response (the redirect itself when `followRedirect` is false). */
  status: number;
  /** URL of the last response (the redirect target when `followRedirect` is false). */
  url: string;
  /** Body of the last response ("" for an unfollowed redirect). */
  body: string;
  /** The authorization code, from the redirect URL or the code page. */
  code?: string;
  /** What the code page shows to be pasted (`CODE~STATE`, or CODE when there is no state). */
  shown?: string;
  /** The `error` the sign-in ended with (e.g. access_denied), or the error shown by the emulator's page. */
  error?: string;
}

export interface ApproveOptions {
  /** The account to choose (default: the preselected one). */
  account?: string;
  /** Default "allow". */
  decision?: "allow" | "deny";
  /** Follow the redirect to the app (loopback receiver or code page). Default true. */
  followRedirect?: boolean;
  /**
   * Scopes to untick on the consent page (granular consent), as asked or in Google's spelling
   * (`email` or `https://www.googleapis.com/auth/userinfo.email`). Throws if one has no checkbox.
   */
  untick?: string[];
}

/** The short names Google spells out: lets `untick` name a scope either way. */
const SPELLED_OUT: Record<string, string> = {
  email: "https://www.googleapis.com/auth/userinfo.email",
  profile: "https://www.googleapis.com/auth/userinfo.profile",
};

const MAX_REDIRECTS = 5;

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (entity, name: string) => {
    const lower = name.toLowerCase();
    if (lower.startsWith("#x")) return String.fromCodePoint(parseInt(lower.slice(2), 16));
    if (lower.startsWith("#")) return String.fromCodePoint(parseInt(lower.slice(1), 10));
    return ({ amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" } as Record<string, string>)[lower] ?? entity;
  });
}

function attributes(tag: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  for (const match of tag.matchAll(/([a-zA-Z_:-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g)) {
    attrs[match[1].toLowerCase()] = decodeEntities(match[2] ?? match[3] ?? match[4] ?? "");
  }
  return attrs;
}

interface ConsentForm {
  action: string;
  hidden: [string, string][];
  accounts: string[];
  selected?: string;
  /** Granular consent checkboxes: [scope, ticked]. */
  scopes: [string, boolean][];
}

function parseConsentForm(html: string, pageUrl: string): ConsentForm | undefined {
  const form = /<form\b([^>]*)>/i.exec(html);
  if (!form) return undefined;
  const action = new URL(attributes(form[1]).action || pageUrl, pageUrl).toString();
  const hidden: [string, string][] = [];
  const accounts: string[] = [];
  let selected: string | undefined;
  const scopes: [string, boolean][] = [];
  for (const input of html.matchAll(/<input\b([^>]*)>/gi)) {
    const attrs = attributes(input[1]);
    if (attrs.type === "hidden" && attrs.name) hidden.push([attrs.name, attrs.value ?? ""]);
    if (attrs.type === "radio" && attrs.name === "account") {
      accounts.push(attrs.value ?? "");
      if ("checked" in attrs) selected = attrs.value;
    }
    if (attrs.type === "checkbox" && attrs.name === "scope") scopes.push([attrs.value ?? "", "checked" in attrs]);
  }
  return { action, hidden, accounts, scopes, ...(selected !== undefined ? { selected } : {}) };
}

function errorShownOn(html: string): string | undefined {
  const match = /<(span|p)\b[^>]*\bid="error"[^>]*>([\s\S]*?)<\/\1>/i.exec(html);
  return match ? decodeEntities(match[2].replace(/<[^>]+>/g, "")).trim() : undefined;
}

function codeShownOn(html: string): string | undefined {
  const match = /<code id="code">([\s\S]*?)<\/code>/i.exec(html);
  return match ? decodeEntities(match[1]).trim() : undefined;
}

/** `code` / `error` from the query of a redirect target. */
function resultFromUrl(url: string): Pick<BrowserResult, "code" | "error"> {
  const params = new URL(url).searchParams;
  const code = params.get("code");
  const error = params.get("error");
  return { ...(code ? { code } : {}), ...(error ? { error } : {}) };
}

/**
 * Drives the consent page like a person: GET the auth URL, choose the account, press Allow/Deny,
 * follow the redirect (to the loopback receiver, or to the code page from which `code` is read).
 */
export async function approveSignIn(authUrl: string, opts: ApproveOptions = {}): Promise<BrowserResult> {
  const page = await fetch(authUrl, { redirect: "manual" });
  const pageBody = await page.text();
  if (page.status >= 300 && page.status < 400) {
    // The emulator answered without asking (e.g. prompt=none): that is the redirect to the app.
    return follow(new URL(page.headers.get("location") ?? "", authUrl).toString(), page.status, opts);
  }
  const form = page.status === 200 ? parseConsentForm(pageBody, authUrl) : undefined;
  if (!form) {
    const error = errorShownOn(pageBody);
    return { status: page.status, url: authUrl, body: pageBody, ...(error ? { error } : {}) };
  }
  const account = opts.account ?? form.selected ?? form.accounts[0];
  if (!account || !form.accounts.includes(account)) {
    throw new Error(
      `approveSignIn: account "${account ?? ""}" is not offered; the page offers ${form.accounts.join(", ")}.`,
    );
  }
  const submit = new URLSearchParams(form.hidden);
  submit.set("account", account);
  submit.set("decision", opts.decision ?? "allow");
  for (const scope of tickedScopes(form, opts.untick ?? [])) submit.append("scope", scope);
  const answer = await fetch(form.action, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: submit.toString(),
  });
  const answerBody = await answer.text();
  const location = answer.headers.get("location");
  if (answer.status < 300 || answer.status >= 400 || !location) {
    const error = errorShownOn(answerBody);
    return { status: answer.status, url: form.action, body: answerBody, ...(error ? { error } : {}) };
  }
  return follow(new URL(location, form.action).toString(), answer.status, opts);
}

function tickedScopes(form: ConsentForm, untick: string[]): string[] {
  const offered = form.scopes.map(([scope]) => scope);
  const names = untick.map((scope) => SPELLED_OUT[scope] ?? scope);
  const missing = names.filter((scope) => !offered.includes(scope));
  if (missing.length > 0) {
    throw new Error(
      `approveSignIn: no checkbox for ${missing.join(", ")}; the page offers ${offered.join(", ") || "none"}.`,
    );
  }
  return form.scopes.filter(([scope, ticked]) => ticked && !names.includes(scope)).map(([scope]) => scope);
}

async function follow(target: string, redirectStatus: number, opts: ApproveOptions): Promise<BrowserResult> {
  const fromRedirect = resultFromUrl(target);
  if (opts.followRedirect === false) return { status: redirectStatus, url: target, body: "", ...fromRedirect };
  let url = target;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const response = await fetch(url, { redirect: "manual" });
    const body = await response.text();
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location && hop < MAX_REDIRECTS) {
      url = new URL(location, url).toString();
      continue;
    }
    const shown = codeShownOn(body);
    // The code page shows CODE~STATE; Google's codes never hold a tilde.
    const code = fromRedirect.code ?? shown?.split("~")[0];
    const error = fromRedirect.error ?? (code ? undefined : errorShownOn(body));
    return {
      status: response.status,
      url,
      body,
      ...(code ? { code } : {}),
      ...(shown ? { shown } : {}),
      ...(error ? { error } : {}),
    };
  }
  throw new Error("approveSignIn: too many redirects.");
}
