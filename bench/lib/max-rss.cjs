// Preloaded with --require: appends the process's peak resident set size (maxRSS, KiB, from
// getrusage) to $BENCH_RSS_OUT when it exits, so a parent can read its children's peaks.
"use strict";
const { appendFileSync } = require("node:fs");

const out = process.env.BENCH_RSS_OUT;
if (out) process.on("exit", () => appendFileSync(out, `${process.resourceUsage().maxRSS}\n`));
