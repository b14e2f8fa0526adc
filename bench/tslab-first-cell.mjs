#!/usr/bin/env node
// Target 9 (issue 26): the first cell of a fresh tslab kernel that imports cred-auth, against one
// that imports google-auth-library. tslab type-checks each cell, reading the imported package's
// .d.ts files, so this is not target 1's plain `import`: it is what a notebook user waits for.
// Usage: node bench/tslab-first-cell.mjs [--runs N] [--warmup N] [--breakdown]   (`npm run build`
// first; needs python3 with jupyter_client). Prints the medians and their ratio; writes nothing.
// --breakdown also prints where each side's time went inside the kernel: tslab's convert() of the
// cell (the type-check) and the package's require (bench/lib/tslab-breakdown.cjs).
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { median } from "./lib/timing.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const NOTEBOOKS = join(ROOT, "notebooks");
const TARGET = 1.0;
const CRED_AUTH_CELL = 'import * as credAuth from "cred-auth";';
const GAL_CELL = 'import * as gal from "google-auth-library";';

const { values: flags } = parseArgs({
  options: { runs: { type: "string" }, warmup: { type: "string" }, breakdown: { type: "boolean" } },
});
const runs = Number(flags.runs ?? 10);
const warmup = Number(flags.warmup ?? 1);

const work = mkdtempSync(join(tmpdir(), "cred-auth-bench-tslab-"));
try {
  const jupyterPath = join(work, "jupyter");
  const breakdownOut = join(work, "breakdown.jsonl");
  writeKernelSpec(jupyterPath, flags.breakdown === true);
  linkPackage();
  const home = join(work, "home");
  mkdirSync(home, { recursive: true });
  const child = spawnSync(
    jupyterPython(),
    [join(ROOT, "bench", "fixtures", "tslab-first-cell.py"), String(runs), String(warmup), CRED_AUTH_CELL, GAL_CELL],
    {
      cwd: NOTEBOOKS,
      encoding: "utf8",
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: home,
        JUPYTER_PATH: jupyterPath,
        JUPYTER_RUNTIME_DIR: join(work, "rt"),
        ...(flags.breakdown ? { BENCH_BREAKDOWN_OUT: breakdownOut } : {}),
      },
    },
  );
  if (child.status !== 0) throw new Error(`the kernel driver failed: ${child.stderr}`);
  const { a, b } = JSON.parse(child.stdout);
  const [credAuth, gal] = [median(a), median(b)];
  const ratio = credAuth / gal;
  const ms = (seconds) => `${(seconds * 1000).toFixed(0)} ms`;
  process.stdout.write(
    `9  first tslab cell: import cred-auth ${ms(credAuth)} vs google-auth-library ${ms(gal)} ` +
      `(medians of ${runs} fresh kernels each): ${ratio.toFixed(3)}x, target <= ${TARGET}x: ${ratio <= TARGET ? "pass" : "MISS"}\n` +
      `   cred-auth:           ${a.map(ms).join(" ")}\n   google-auth-library: ${b.map(ms).join(" ")}\n`,
  );
  if (flags.breakdown) process.stdout.write(breakdown(breakdownOut));
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** A Python with jupyter_client (Debian's python3-jupyter-client; gcloud's python3 on PATH has none). */
function jupyterPython() {
  for (const python of ["/usr/bin/python3", "python3"])
    if (spawnSync(python, ["-c", "import jupyter_client"], { stdio: "ignore" }).status === 0) return python;
  throw new Error("no python3 with jupyter_client (apt-get install python3-jupyter-client)");
}

/** Medians per side of convert() and of the package's require, from the kernels' measures (warm-up included). */
function breakdown(file) {
  const kernels = new Map();
  for (const line of readFileSync(file, "utf8").trim().split("\n")) {
    const { pid, what, ms } = JSON.parse(line);
    const kernel = kernels.get(pid) ?? {};
    if (what === "convert") kernel.convert = ms;
    else [kernel.side, kernel.require] = [what.slice("require ".length), ms];
    kernels.set(pid, kernel);
  }
  const lines = ["cred-auth", "google-auth-library"].map((side) => {
    const mine = [...kernels.values()].filter((kernel) => kernel.side === side);
    const med = (key) => median(mine.map((kernel) => kernel[key])).toFixed(1);
    return `   ${side.padEnd(20)} convert() ${med("convert")} ms, require ${med("require")} ms (medians of ${mine.length} kernels)\n`;
  });
  return `   inside the kernel:\n${lines.join("")}`;
}

/** tslab's kernel spec, run by this Node (as test/notebooks/support.ts writes it); `timed`: with the breakdown preload. */
function writeKernelSpec(jupyterDir, timed) {
  const specDir = join(jupyterDir, "kernels", "tslab");
  mkdirSync(specDir, { recursive: true });
  const tslab = realpathSync(join(ROOT, "node_modules", "tslab", "bin", "tslab"));
  const preload = timed ? ["--require", join(ROOT, "bench", "lib", "tslab-breakdown.cjs")] : [];
  const argv = [process.execPath, ...preload, tslab, "kernel", "--config-path", "{connection_file}"];
  writeFileSync(
    join(specDir, "kernel.json"),
    JSON.stringify({ argv, display_name: "TypeScript", language: "typescript" }),
  );
}

/** notebooks/node_modules/cred-auth -> the checkout, as `npm install` in notebooks/ makes it. */
function linkPackage() {
  const link = join(NOTEBOOKS, "node_modules", "cred-auth");
  if (existsSync(link)) return;
  mkdirSync(join(NOTEBOOKS, "node_modules"), { recursive: true });
  symlinkSync("../..", link, "dir");
}
