#!/usr/bin/env node
// Target 9 (issue 26): the first cell of a fresh tslab kernel that imports cred-auth, against one
// that imports google-auth-library. tslab type-checks each cell, reading the imported package's
// .d.ts files, so this is not target 1's plain `import`: it is what a notebook user waits for.
// Usage: node bench/tslab-first-cell.mjs [--runs N] [--warmup N]   (`npm run build` first; needs
// python3 with jupyter_client). Prints the medians and their ratio; writes nothing.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
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

const { values: flags } = parseArgs({ options: { runs: { type: "string" }, warmup: { type: "string" } } });
const runs = Number(flags.runs ?? 10);
const warmup = Number(flags.warmup ?? 1);

const work = mkdtempSync(join(tmpdir(), "cred-auth-bench-tslab-"));
try {
  const jupyterPath = join(work, "jupyter");
  writeKernelSpec(jupyterPath);
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
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** A Python with jupyter_client (Debian's python3-jupyter-client; gcloud's python3 on PATH has none). */
function jupyterPython() {
  for (const python of ["/usr/bin/python3", "python3"])
    if (spawnSync(python, ["-c", "import jupyter_client"], { stdio: "ignore" }).status === 0) return python;
  throw new Error("no python3 with jupyter_client (apt-get install python3-jupyter-client)");
}

/** tslab's kernel spec, run by this Node (as test/notebooks/support.ts writes it). */
function writeKernelSpec(jupyterDir) {
  const specDir = join(jupyterDir, "kernels", "tslab");
  mkdirSync(specDir, { recursive: true });
  const tslab = realpathSync(join(ROOT, "node_modules", "tslab", "bin", "tslab"));
  const argv = [process.execPath, tslab, "kernel", "--config-path", "{connection_file}"];
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
