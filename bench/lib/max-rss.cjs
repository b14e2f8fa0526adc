// Preloaded with --require: when the process exits, appends to $BENCH_RSS_OUT its peak resident
// set size (maxRSS from getrusage, KiB) and, on Linux, its anonymous resident memory at exit
// (RssAnon, KiB: heap and other private memory, without the pages of the node binary that the
// kernel maps in, which vary with the page cache), so a parent can read its children's figures.
"use strict";
const { appendFileSync, readFileSync } = require("node:fs");

const out = process.env.BENCH_RSS_OUT;
if (out) {
  process.on("exit", () => {
    let anon = "";
    try {
      anon = /^RssAnon:\s+(\d+)\s+kB/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? "";
    } catch {}
    appendFileSync(out, `${process.resourceUsage().maxRSS} ${anon}\n`);
  });
}
