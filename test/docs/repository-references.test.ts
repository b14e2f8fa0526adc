// The pages and the TSDoc a user reads come in the package, without this repository: a reference to
// a path that only the repository has (`src/...`, `test/support/...`, `notebooks/`), to one of its
// npm scripts (`npm run docs`) or to its specification's sections ("SPEC section 1") leads nowhere
// there. Such references stay out of README.md, docs/*.md, examples/ and the TSDoc of the public
// types; docs/architecture.md, contributor documentation that does not ship, and README.md's "Working on
// cred-auth" section may keep them. A web link to
// the repository (`https://github.com/...`) is fine: it works from anywhere.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import ts from "typescript";
import { installedPackage } from "../package/consumer.ts";
import { CONTRIBUTOR_PAGE, ROOT, shippedPages } from "./blocks.ts";

/** Top-level entries of the checkout that are no part of the repository's content. */
const NOT_CONTENT = new Set([".git", "node_modules", ".tmp", "dist", "coverage", "reports", ".stryker-tmp"]);

/**
 * Every path of the repository (files and directories, relative, `/`-separated). Neither
 * node_modules nor builds are walked, at any depth, nor links (a notebook's node_modules links
 * back to the checkout).
 */
function repositoryPaths(dir = ROOT, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => !NOT_CONTENT.has(entry.name))
    .flatMap((entry) => {
      const path = `${prefix}${entry.name}`;
      return entry.isDirectory() ? [path, ...repositoryPaths(join(dir, entry.name), `${path}/`)] : [path];
    });
}

/** A path written in a page as a pattern: `...`, `*` and all-capital segments (`NAME`) stand for any name. */
function pathPattern(path: string): RegExp {
  const segments = path.replace(/\/$/, "").split("/");
  const source = segments
    .map((segment) =>
      segment === "..." || segment === "…" || /^[A-Z_]+(\.\w+)?$/.test(segment)
        ? "[^/]+"
        : segment
            .split("*")
            .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
            .join("[^/]*"),
    )
    .join("/");
  return new RegExp(`^${source}(/.*)?$`);
}

interface Context {
  repository: readonly string[];
  packaged: readonly string[];
  scripts: ReadonlySet<string>;
}

/** The repository-only references of a text: paths the repository has and the package lacks, npm scripts, the spec. */
export function repositoryReferences(text: string, context: Context): string[] {
  const withoutWebLinks = text.replace(/\[[^\]]*\]\(https?:[^)]*\)/g, "").replace(/https?:\/\/\S+/g, "");
  const found: string[] = [];
  for (const match of withoutWebLinks.matchAll(/(?<![\w~/.$-])\.?[\w-][\w.-]*(?:\/[\w.*…-]*)+/g)) {
    const path = match[0].replace(/[.,:;]+$/, "");
    const pattern = pathPattern(path);
    if (context.repository.some((p) => pattern.test(p)) && !context.packaged.some((p) => pattern.test(p)))
      found.push(path);
  }
  for (const match of withoutWebLinks.matchAll(/\bnpm run ([\w:-]+)/g))
    if (context.scripts.has(match[1] ?? "")) found.push(match[0]);
  for (const match of withoutWebLinks.matchAll(/\b(?:SPEC|FACTS)\b(?: section)?(?: [\d.]+)?/g)) found.push(match[0]);
  return found;
}

/** The TSDoc comments of the declarations a user's editor shows: those reachable from the public entry points. */
function publicTsDoc(): { file: string; text: string }[] {
  const entries = ["dist/index.d.ts", "dist/emulator/index.d.ts"].map((p) => join(ROOT, p));
  const program = ts.createProgram(entries, { types: [], noEmit: true });
  return program
    .getSourceFiles()
    .filter((f) => f.fileName.startsWith(join(ROOT, "dist")))
    .map((f) => ({
      file: f.fileName.slice(ROOT.length),
      text: (f.text.match(/\/\*\*[\s\S]*?\*\//g) ?? []).join("\n"),
    }));
}

async function context(): Promise<Context> {
  const { files } = await installedPackage();
  const { scripts } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  return { repository: repositoryPaths(), packaged: files, scripts: new Set(Object.keys(scripts)) };
}

/** The README's own section for contributors, which names the repository's npm scripts on purpose. */
function withoutContributorSection(page: string, text: string): string {
  if (page !== "README.md") return text;
  return text.replace(/^## Working on cred-auth\n[\s\S]*?(?=^## )/m, "");
}

test("the shipped pages and examples hold no reference to the repository alone", async () => {
  const ctx = await context();
  const examples = readdirSync(join(ROOT, "examples"))
    .filter((n) => n.endsWith(".ts"))
    .map((n) => `examples/${n}`);
  const pages = [...shippedPages(), ...examples];
  assert.ok(pages.length >= 15, `only ${pages.length} pages`);
  const found = pages.flatMap((page) =>
    repositoryReferences(withoutContributorSection(page, readFileSync(join(ROOT, page), "utf8")), ctx).map(
      (r) => `${page}: ${r}`,
    ),
  );
  assert.deepEqual(found, [], "repository-only references in shipped pages");
});

test("the TSDoc of the public types holds no reference to the repository alone", async () => {
  const ctx = await context();
  const docs = publicTsDoc();
  assert.ok(docs.length >= 20, `only ${docs.length} declaration files reached`);
  const found = docs.flatMap(({ file, text }) => repositoryReferences(text, ctx).map((r) => `${file}: ${r}`));
  assert.deepEqual(found, [], "repository-only references in the TSDoc");
});

test("docs/architecture.md, which may name the repository's paths, says it is for contributors", () => {
  const head = readFileSync(join(ROOT, CONTRIBUTOR_PAGE), "utf8").split("\n").slice(0, 6).join("\n");
  assert.match(head, /for contributors/i);
});

test("the reference finder sees paths of the repository only, scripts and the spec; not web links or other repositories' paths", () => {
  const ctx: Context = {
    repository: ["src", "src/token-cache", "src/token-cache/index.ts", "docs", "docs/cli.md", "notebooks"],
    packaged: ["docs/cli.md", "dist/index.js"],
    scripts: new Set(["docs", "test"]),
  };
  const text = [
    "see `src/token-cache` and src/... and notebooks/ (SPEC section 1, FACTS 2)",
    "npm run docs; npm run build-mine; docs/cli.md; ~/.config/cred/x.json",
    "google-auth-library-nodejs `src/auth/stscredentials.ts`",
    "[src/x](https://github.com/cred-auth/cred-auth/blob/main/src/x) https://github.com/o/r/tree/main/src/y",
  ].join("\n");
  assert.deepEqual(repositoryReferences(text, ctx), [
    "src/token-cache",
    "src/",
    "notebooks/",
    "npm run docs",
    "SPEC section 1",
    "FACTS 2",
  ]);
});
