// Preloaded with --require: records every module the process resolves (CommonJS and ESM,
// through node:module's synchronous hooks) and writes them, one URL or path a line, to
// $BENCH_TRACE_OUT when the process exits.
"use strict";
const { appendFileSync } = require("node:fs");
const { registerHooks } = require("node:module");

const out = process.env.BENCH_TRACE_OUT;
const seen = new Set();
if (out && typeof registerHooks === "function") {
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const result = nextResolve(specifier, context);
      seen.add(result.url);
      return result;
    },
  });
  process.on("exit", () => appendFileSync(out, `${[...seen].join("\n")}\n`));
}
