// Preloaded with --require: splits one run of a command into its phases, in milliseconds since
// the process started (performance.timeOrigin), and appends them to $BENCH_PHASES_OUT at exit:
// `ready working exited`.
// - 0 -> ready: node's own start-up, up to the first user code (this preload);
// - ready -> working: loading the command line, up to its first touch of the file named by
//   $BENCH_PHASES_FILE (an open, stat or read of that path): arguments parsed, code loaded;
// - working -> exited: the work (reading the file, the cache key, the cache entry, printing) and
//   the exit. Modules evaluated on first use during the work count as work.
// Without $BENCH_PHASES_FILE (a baseline such as `node -e 0`), working is ready.
"use strict";
const fs = require("node:fs");
const { performance } = require("node:perf_hooks");

const out = process.env.BENCH_PHASES_OUT;
const file = process.env.BENCH_PHASES_FILE;
const ready = performance.now();
let working = file ? undefined : ready;
if (out) {
  if (file) {
    for (const name of ["openSync", "statSync", "lstatSync", "readFileSync", "existsSync", "accessSync"]) {
      const original = fs[name];
      fs[name] = function (path, ...rest) {
        if (working === undefined && String(path) === file) working = performance.now();
        return original.call(this, path, ...rest);
      };
    }
  }
  process.on("exit", () => {
    const exited = performance.now();
    fs.appendFileSync(out, `${ready} ${working ?? exited} ${exited}\n`);
  });
}
