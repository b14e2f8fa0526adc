// What a user gets from `npm pack`: the repository is copied without dist/ (a fresh clone), packed
// there (the `prepack` step must build dist/), and the tarball is installed with google-auth-library
// into a temp consumer project. One pack, one install; then the consumer imports it (ESM and CJS),
// runs `npx cred-auth --version`, signs in with `login` against the emulator and runs `print-token`.
// The install comes from npm's cache when it can (--prefer-offline), from the registry otherwise.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, type SpawnSyncReturns } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, posix } from "node:path";
import { fileURLToPath } from "node:url";
import { approveSignIn } from "cred-auth/emulator";
import { withEmulator } from "../support/emulator.ts";
import { collect } from "../cli/support.ts";
import { freePortRange, rangeEnv } from "../oauth/support.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string; files: string[] };
/** What a fresh clone has that the build and the package need (no dist/, no node_modules of its own). */
const CLONE = [
  "package.json",
  "tsconfig.json",
  "src",
  "scripts",
  "docs",
  "examples",
  "CHANGELOG.md",
  "LICENSE",
  "README.md",
];

const work = mkdtempSync(join(tmpdir(), "cred-auth-pack-"));
test.after(() => rmSync(work, { recursive: true, force: true }));
/** This Node first on PATH, so `npx` and the bin's `#!/usr/bin/env node` run the Node the suite runs on. */
const PATH = [dirname(process.execPath), process.env.PATH].join(delimiter);

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> {
  const r = spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, PATH, npm_config_update_notifier: "false", ...env },
    timeout: 200_000,
  });
  assert.equal(r.status, 0, `${command} ${args.join(" ")} failed (${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
  return r;
}

test("npm pack builds dist/ (prepack), and the tarball installs and works in a consumer: ESM, CJS, npx, login, print-token", async () => {
  // 1. A clone without dist/: `npm pack` must build it.
  const clone = join(work, "clone");
  mkdirSync(clone);
  for (const entry of CLONE) cpSync(join(ROOT, entry), join(clone, entry), { recursive: true });
  symlinkSync(join(ROOT, "node_modules"), join(clone, "node_modules"), "dir");
  assert.ok(!existsSync(join(clone, "dist")));
  const packed = run("npm", ["pack", "--json", "--pack-destination", work], clone);
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as {
    filename: string;
    files: { path: string }[];
  }[];
  const files = info!.files.map((f) => f.path);
  for (const needed of [
    "dist/index.js",
    "dist/index.mjs",
    "dist/index.d.ts",
    "dist/cli.js",
    "dist/emulator/index.js",
    "dist/package.json",
    "LICENSE",
    "README.md",
    "docs/cli.md",
    "docs/getting-started.md",
    "package.json",
  ])
    assert.ok(files.includes(needed), `the tarball lacks ${needed}`);
  assert.ok(!files.some((f) => f.startsWith("src/") || f.startsWith("test/")), "sources or tests were packed");
  assert.ok(!files.includes("docs/architecture.md"), "the contributors' page was packed");
  // Every relative link of a packed page resolves inside the package.
  for (const page of files.filter((f) => f.endsWith(".md"))) {
    const text = readFileSync(join(clone, page), "utf8")
      .replace(/```[\s\S]*?```/g, "")
      .replace(/`[^`\n]*`/g, "");
    for (const [, link] of text.matchAll(/\]\(([^)#\s]+)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link!)) continue;
      const target = posix.join(posix.dirname(page), link!);
      assert.ok(
        files.includes(target) || files.includes(posix.join(target, "README.md")),
        `${page} links to ${link}, not in the package`,
      );
    }
  }
  // Every packed file is used: an entry, or named by another packed file that is (unusedIn, below).
  assert.deepEqual(unusedIn(clone, files), [], "packed files that no entry, module or page names");
  assert.ok(!files.some((f) => f.endsWith(".map")), "source maps are not shipped (scripts/build.mjs packageContents)");
  // No file is packed twice under two names (dist/index.d.mts was once a 40 kB copy of index.d.ts).
  const seen = new Map<string, string>();
  for (const file of files.filter((f) => statSync(join(clone, f)).size > 1024)) {
    const digest = createHash("sha256")
      .update(readFileSync(join(clone, file)))
      .digest("hex");
    assert.equal(seen.get(digest), undefined, `${file} is a copy of ${seen.get(digest)}`);
    seen.set(digest, file);
  }

  // 2. A consumer project installs the tarball with google-auth-library (the peer dependency).
  const consumer = join(work, "consumer");
  mkdirSync(consumer);
  writeFileSync(join(consumer, "package.json"), `{ "name": "consumer", "version": "1.0.0", "private": true }\n`);
  run(
    "npm",
    [
      "install",
      "--no-audit",
      "--no-fund",
      "--prefer-offline",
      "--loglevel=error",
      join(work, info!.filename),
      "google-auth-library@^11",
    ],
    consumer,
  );

  // 3. ESM import and CommonJS require give the same API.
  const esm = run(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `import * as c from "cred-auth"; import { startEmulator } from "cred-auth/emulator"; console.log(typeof c.default, typeof c.getUserCredentials, c.VERSION, typeof startEmulator);`,
    ],
    consumer,
  );
  assert.equal(esm.stdout.trim(), `function function ${pkg.version} function`);
  const cjs = run(
    process.execPath,
    [
      "-e",
      `const c = require("cred-auth"); console.log(typeof c.default, typeof c.loadUserCredentials, c.VERSION, new c.CredCredentialsError("x") instanceof c.CredAuthError);`,
    ],
    consumer,
  );
  assert.equal(cjs.stdout.trim(), `function function ${pkg.version} true`);

  // 4. The bin, through npx.
  assert.equal(run("npx", ["--no-install", "cred-auth", "--version"], consumer).stdout.trim(), pkg.version);

  // 5. login against the emulator, the browser simulated, then print-token from the saved file.
  const emulator = await withEmulator();
  const home = join(work, "home");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    CRED_AUTH_EMULATOR_HOST: emulator.host,
    CRED_AUTH_LOOPBACK_PORTS: rangeEnv(await freePortRange(10)),
    BROWSER: "none",
    NO_PROXY: "127.0.0.1,localhost",
  };
  const child = spawn("npx", ["--no-install", "cred-auth", "login", "creds.json", "--use_local_webserver"], {
    cwd: consumer,
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stdin.end();
  const done = collect(child, 120_000);
  const url = await waitForUrl(child);
  const approved = await approveSignIn(url, { account: "alice@example.com" });
  assert.equal(approved.status, 200, approved.error);
  const login = await done;
  assert.equal(login.code, 0, login.stderr);
  const saved = JSON.parse(readFileSync(join(consumer, "creds.json"), "utf8")) as Record<string, string>;
  assert.equal(saved.type, "authorized_user");

  // Not spawnSync: the emulator answers from this process, whose event loop must keep running.
  const printed = spawn("npx", ["--no-install", "cred-auth", "print-token", "creds.json"], { cwd: consumer, env });
  const token = await collect(printed, 120_000);
  assert.equal(token.code, 0, token.stderr);
  assert.match(token.stdout, /^ya29\.\S+\n$/);
});

/** The sign-in URL login prints on stderr. */
function waitForUrl(child: ReturnType<typeof spawn>): Promise<string> {
  let text = "";
  return new Promise((resolve, reject) => {
    child.stderr!.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const match = /authorize this application: (\S+)/.exec(text);
      if (match) resolve(match[1]!);
    });
    child.once("exit", () => reject(new Error(`login exited before printing the sign-in URL:\n${text}`)));
  });
}

/**
 * The packed files that nothing uses, read from the files themselves (not from the build's own
 * esbuild and TypeScript reading: scripts/build.mjs packageContents). Used are package.json's
 * targets (exports, bin, main, types), the files npm and Node read by name (package.json files,
 * README, LICENSE, CHANGELOG), and, from a used file onwards, any file whose path a used file names:
 * a quoted relative path in JavaScript or a declaration (`require("./x.js")`, a lazy function's
 * `"./credentials/x.js"`, the bin's `"cli-bundle.js"`; `from "./x.js"` names x.d.ts), a page's link
 * or mention (`examples/x.ts`, `dist/THIRD_PARTY_NOTICES.md`).
 */
function unusedIn(root: string, files: string[]): string[] {
  const packed = new Set(files);
  const meta = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Record<string, unknown>;
  const targets = (value: unknown): string[] =>
    typeof value === "string" ? [value] : Object.values((value ?? {}) as object).flatMap(targets);
  const used = new Set(
    [...targets(meta.exports), ...targets(meta.bin), ...targets(meta.typesVersions), meta.main, meta.types]
      .map((t) => posix.normalize(String(t)))
      .concat(files.filter((f) => /(^|\/)(package\.json|README\.md|LICENSE|CHANGELOG\.md)$/.test(f))),
  );
  const named = (file: string): string[] => {
    const text = readFileSync(join(root, file), "utf8");
    const dir = posix.dirname(file);
    const quoted = [...text.matchAll(/["'](\.{0,2}\/?[\w@./-]+)["']/g)].map((m) => posix.join(dir, m[1]!));
    // A declaration's `from "./x.js"` names x.d.ts; a module's names modules.
    if (/\.d\.m?ts$/.test(file)) return quoted.map((c) => c.replace(/\.js$/, ".d.ts").replace(/\.mjs$/, ".d.mts"));
    const candidates = /\.m?js$/.test(file)
      ? quoted
      : [...text.matchAll(/[\w@./-]+\.(?:md|ts|js|html|ipynb|json)\b/g)].flatMap((m) => {
          // `node node_modules/cred-auth/examples/x.js` names the package's examples/x.js.
          const path = m[0].replace(/^.*node_modules\/cred-auth\//, "");
          return [posix.join(dir, path), posix.normalize(path)];
        });
    return candidates;
  };
  const queue = [...used].filter((f) => packed.has(f));
  for (let file = queue.pop(); file !== undefined; file = queue.pop())
    for (const other of named(file))
      if (packed.has(other) && !used.has(other)) {
        used.add(other);
        queue.push(other);
      }
  return files.filter((f) => !used.has(f)).sort();
}
