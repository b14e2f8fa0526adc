// docs/notebooks.md's `npx tslab install` line, run as written in a project that installed tslab
// locally (no global tslab on PATH), registers a kernel that Jupyter can start and that runs a
// TypeScript cell. Without `--binary`, tslab registers argv ["tslab", ...] and the kernel fails
// to start (FileNotFoundError: 'tslab').
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { after, test } from "node:test";
import { findJupyterPython } from "../notebooks/support.ts";
import { ROOT } from "./blocks.ts";

const python = findJupyterPython();
const skip = python || process.env.CI ? false : "Jupyter (python3-nbclient, python3-jupyter-client) is not installed";

const START_KERNEL = `
from jupyter_client.manager import start_new_kernel
km, kc = start_new_kernel(kernel_name="tslab", startup_timeout=120)
try:
    reply = kc.execute_interactive('const answer: number = 20 + 22; console.log("tslab says", answer)', timeout=120)
    print("status", reply["content"]["status"])
finally:
    km.shutdown_kernel(now=True)
`;

test("docs/notebooks.md's tslab install works with tslab installed in the project only", { skip }, () => {
  const page = readFileSync(join(ROOT, "docs", "notebooks.md"), "utf8");
  const line = page.split("\n").find((l) => l.startsWith("npx tslab install"));
  assert.ok(line, "docs/notebooks.md has no `npx tslab install` line");
  const project = mkdtempSync(join(tmpdir(), "cred-auth-tslab-install-"));
  after(() => rmSync(project, { recursive: true, force: true }));
  symlinkSync(join(ROOT, "node_modules"), join(project, "node_modules"), "dir");
  const prefix = join(project, "jupyter-prefix");
  // The line as written, with a prefix of its own (not the machine's kernels), where the first
  // python3 on PATH has no Jupyter (pyenv's, a virtualenv's): the line must find the one that has.
  const command = `${line.replace(/\s+#.*$/, "")} --prefix "${prefix}"`;
  const decoy = join(project, "decoy-bin");
  mkdirSync(decoy);
  writeFileSync(join(decoy, "python3"), "#!/bin/sh\necho 'No module named jupyter' >&2; exit 1\n", { mode: 0o755 });
  const jupyterBin = dirname(spawnSync("bash", ["-c", "command -v jupyter"], { encoding: "utf8" }).stdout.trim());
  const nodeOnly = [dirname(process.execPath), "/usr/bin", "/bin"].join(delimiter);
  const install = spawnSync("bash", ["-c", command], {
    cwd: project,
    encoding: "utf8",
    env: { HOME: project, PATH: [join(project, "node_modules", ".bin"), decoy, jupyterBin, nodeOnly].join(delimiter) },
  });
  assert.equal(install.status, 0, `${command}\n${install.stdout}${install.stderr}`);
  // Jupyter starts the kernel later, from a shell where the project's node_modules/.bin is not on PATH.
  const run = spawnSync(python ?? "python3", ["-c", START_KERNEL], {
    cwd: project,
    encoding: "utf8",
    timeout: 180_000,
    env: { HOME: project, PATH: nodeOnly, JUPYTER_PATH: join(prefix, "share", "jupyter") },
  });
  assert.match(run.stdout, /tslab says 42\nstatus ok/, `${run.stdout}\n${run.stderr}`);
});
