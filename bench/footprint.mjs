#!/usr/bin/env node
// What a user's install of cred-auth weighs (issue 46): `npm install <this package> google-auth-library`
// in an empty project, against `npm install google-auth-library` alone, in packages and in bytes on
// disk (du: the blocks the files take). npm's own settings, this machine's platform. Fails (exit 1)
// when either ratio is above --max (2.0), or when README.md or docs/getting-started.md state another size
// (bench/lib/footprint-docs.mjs). See bench/README.md, "Install footprint".
// Usage: node bench/footprint.mjs [--tarball FILE] [--max 2.0] [--marginal conf,open,...] [--out FILE]
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { sizeDrift, sizePages } from "./lib/footprint-docs.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const GAL = `google-auth-library@${pkg.peerDependencies["google-auth-library"]}`;

const { values: flags } = parseArgs({
  options: {
    tarball: { type: "string" },
    max: { type: "string", default: "2.0" },
    marginal: { type: "string" },
    out: { type: "string" },
    help: { type: "boolean", short: "h", default: false },
  },
});
if (flags.help) {
  process.stdout.write(
    "Usage: node bench/footprint.mjs [--tarball FILE] [--max 2.0] [--marginal NAME,...] [--out FILE]\n" +
      "  --tarball: a packed cred-auth (default: `npm pack` of this checkout, which builds it)\n" +
      "  --marginal: also what each package adds to google-auth-library alone\n",
  );
  process.exit(0);
}
const max = Number(flags.max);

const work = mkdtempSync(join(tmpdir(), "cred-auth-footprint-"));
try {
  const tarball = flags.tarball ? resolve(flags.tarball) : pack(work);
  const alone = install(join(work, "alone"), [GAL]);
  const withUs = install(join(work, "with-cred-auth"), [tarball, GAL]);
  const rows = [
    ["google-auth-library alone", alone],
    ["cred-auth + google-auth-library", withUs],
  ];
  const ratio = { packages: withUs.packages.size / alone.packages.size, bytes: withUs.bytes / alone.bytes };
  print(rows, ratio);
  const added = addedPackages(alone, withUs);
  process.stdout.write(`\nWhat cred-auth adds (${added.length} packages, largest first):\n`);
  for (const { name, bytes } of added) process.stdout.write(`  ${name.padEnd(48)} ${mb(bytes)}\n`);
  const addition = { packages: added.length, bytes: withUs.bytes - alone.bytes };
  process.stdout.write(
    `cred-auth adds ${addition.packages} packages and ${mb(addition.bytes)} (what the docs state)\n`,
  );
  const drift = sizeDrift(sizePages(ROOT), addition);
  const marginal = [];
  for (const name of flags.marginal?.split(",").filter(Boolean) ?? []) {
    // At the range this package asks for (the version it would install or build in).
    const range = pkg.dependencies?.[name] ?? pkg.devDependencies?.[name];
    const one = install(join(work, `marginal-${name.replace("/", "+")}`), [GAL, range ? `${name}@${range}` : name]);
    const extra = addedPackages(alone, one);
    marginal.push({ name, packages: extra.length, bytes: one.bytes - alone.bytes, extra });
  }
  if (marginal.length) {
    process.stdout.write(
      `\nWhat each package alone adds to google-auth-library (${alone.packages.size} packages, ${mb(alone.bytes)}):\n`,
    );
    for (const m of marginal)
      process.stdout.write(`  ${m.name.padEnd(24)} +${String(m.packages).padStart(3)} packages  +${mb(m.bytes)}\n`);
  }
  const load = loadavg()[0].toFixed(1);
  if (flags.out)
    writeFileSync(
      flags.out,
      `${JSON.stringify({ gal: GAL, max, ratio, sides: Object.fromEntries(rows.map(([k, v]) => [k, summary(v)])), added, marginal, load }, null, 2)}\n`,
    );
  const over = Object.entries(ratio).filter(([, r]) => r > max);
  if (over.length) {
    process.stdout.write(
      `\nFAIL: ${over.map(([k, r]) => `${k} ${r.toFixed(2)}x`).join(", ")} (at most ${max.toFixed(1)}x)\n`,
    );
    process.exitCode = 1;
  } else process.stdout.write(`\npass: at most ${max.toFixed(1)}x in packages and in bytes\n`);
  if (drift.length) {
    process.stdout.write(`FAIL: the docs state another size: ${drift.join("; ")}\n`);
    process.exitCode = 1;
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** `npm pack` of this checkout (its prepack builds dist/); the tarball's path. */
function pack(dir) {
  const out = npm(["pack", "--json", "--pack-destination", dir], ROOT).stdout;
  const [info] = JSON.parse(out.slice(out.indexOf("[")));
  process.stdout.write(
    `packed ${info.filename}: ${info.entryCount} files, ${kb(info.size)} packed, ${kb(info.unpackedSize)} unpacked\n`,
  );
  return join(dir, info.filename);
}

/**
 * An empty project (no node_modules above it, so nothing is found that was not installed), then one
 * `npm install` of `specs`. The installed packages (npm's own record of node_modules) and du's bytes.
 */
function install(dir, specs) {
  for (let up = dirname(dir); dirname(up) !== up; up = dirname(up))
    if (existsSync(join(up, "node_modules")))
      throw new Error(`${up} has a node_modules: the project would not be alone`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), `{ "name": "footprint", "version": "1.0.0", "private": true }\n`);
  npm(["install", "--no-audit", "--no-fund", "--loglevel=error", ...specs], dir);
  const lock = JSON.parse(readFileSync(join(dir, "node_modules", ".package-lock.json"), "utf8"));
  const packages = new Map();
  for (const [path, entry] of Object.entries(lock.packages)) if (path) packages.set(path, entry);
  return { dir, packages, bytes: du(join(dir, "node_modules")) };
}

/** The packages of `b` that `a` has not (by where they are installed), with their bytes, largest first. */
function addedPackages(a, b) {
  return [...b.packages.keys()]
    .filter((path) => !a.packages.has(path))
    .map((path) => ({
      name: path.replace(/^node_modules\//, "").replaceAll("/node_modules/", " > "),
      bytes: du(join(b.dir, path), true),
    }))
    .sort((x, y) => y.bytes - x.bytes);
}

/** Bytes on disk (du's blocks, in bytes); with `own`, not counting nested node_modules. */
function du(path, own = false) {
  const args = ["-s", "-B1", ...(own ? ["--exclude=node_modules"] : []), path];
  const r = spawnSync("du", args, { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`du ${args.join(" ")}: ${r.stderr}`);
  return Number(r.stdout.split(/\s/)[0]);
}

function npm(args, cwd) {
  // This Node first on PATH: npm's scripts (prepack) run it.
  const env = {
    ...process.env,
    PATH: [dirname(process.execPath), process.env.PATH].join(delimiter),
    npm_config_update_notifier: "false",
  };
  const r = spawnSync("npm", args, { cwd, env, encoding: "utf8", timeout: 600_000 });
  if (r.status !== 0)
    throw new Error(`npm ${args.join(" ")} failed (${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
  return r;
}

function print(rows, ratio) {
  process.stdout.write(`\n${"".padEnd(34)}${"packages".padStart(10)}${"on disk".padStart(12)}\n`);
  for (const [label, side] of rows)
    process.stdout.write(
      `${label.padEnd(34)}${String(side.packages.size).padStart(10)}${mb(side.bytes).padStart(12)}\n`,
    );
  process.stdout.write(
    `${"ratio".padEnd(34)}${`${ratio.packages.toFixed(2)}x`.padStart(10)}${`${ratio.bytes.toFixed(2)}x`.padStart(12)}\n`,
  );
}

function summary(side) {
  return { packages: side.packages.size, bytes: side.bytes };
}

function mb(bytes) {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

function kb(bytes) {
  return `${Math.round(bytes / 1e3)} kB`;
}
