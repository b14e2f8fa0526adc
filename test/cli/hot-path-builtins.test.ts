// print-token's cached path against `node -e 0` (bench target 2): which of Node's own modules it
// loads beyond those of running an empty file. Each is compiled or deserialized on every run:
// node:module alone (Node's ES module loader, source maps) was about 3% of the path's instructions.
// node:vm runs the bundle from its bytecode cache (src/cli.ts); nothing else may come.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { withEmulator } from "../support/emulator.ts";
import { runCli, sandbox, userFile } from "./support.ts";

/** Node's own modules a process loaded (process.moduleLoadList), written at exit by a preload that loads none. */
const RECORDER = `process.on("exit", () => require("node:fs").writeFileSync(process.env.RECORD_TO, JSON.stringify(process.moduleLoadList)));`;

test("print-token's cached path loads no Node module beyond node:vm that an empty program does not", async () => {
  const emu = await withEmulator();
  // No CRED_AUTH_EMULATOR_HOST: its notice on stderr would bring Node's streams (the file names the
  // emulator's token URL, as the benchmark's do); a cache directory, for the bytecode cache.
  const box = sandbox();
  mkdirSync(join(box.dir, ".cache"));
  const { path } = await userFile(emu, box);
  const recorder = join(box.dir, "record-builtins.cjs");
  writeFileSync(recorder, RECORDER);
  const loaded = async (args: string[]): Promise<string[]> => {
    const record = join(box.dir, `builtins-${Math.random()}.json`);
    const r = await runCli(args, { ...box.env, RECORD_TO: record }, { nodeArgs: ["--require", recorder] });
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(readFileSync(record, "utf8")) as string[];
  };
  // The first run refreshes; the second, the cached path, makes the bytecode cache; the third runs from it.
  await loaded(["print-token", path]);
  await loaded(["print-token", path]);
  const cached = await loaded(["print-token", path]);
  const empty = join(box.dir, "empty.js");
  writeFileSync(empty, "");
  const record = join(box.dir, "builtins-empty.json");
  const floor = spawnSync(process.execPath, ["--require", recorder, empty], {
    env: { ...box.env, RECORD_TO: record },
  });
  assert.equal(floor.status, 0, String(floor.stderr));
  const baseline = new Set(JSON.parse(readFileSync(record, "utf8")) as string[]);
  const beyond = cached.filter((m) => !baseline.has(m) && /^NativeModule /.test(m));
  assert.deepEqual(beyond, ["NativeModule vm"]);
  // The control: a command that turns the compile cache on loads node:module, and the recorder sees it.
  assert.ok((await loaded(["--version"])).includes("NativeModule module"), "the recorder sees node:module");
});
