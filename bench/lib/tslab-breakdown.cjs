// Preloaded with --require into a tslab kernel by `bench/tslab-first-cell.mjs --breakdown`: times
// tslab's convert() of each cell (its type-check and emit) and the cell's top-level require of
// cred-auth or google-auth-library, and appends one JSON line per measure to $BENCH_BREAKDOWN_OUT
// at once (the driver kills the kernel, so nothing may wait for exit).
"use strict";
const { appendFileSync } = require("node:fs");
const Module = require("node:module");

const out = process.env.BENCH_BREAKDOWN_OUT;
const PACKAGES = new Set(["cred-auth", "google-auth-library"]);

function record(what, started) {
  appendFileSync(out, `${JSON.stringify({ pid: process.pid, what, ms: performance.now() - started })}\n`);
}

/** Wraps the converters tslab's converter module makes so that each convert() is timed. */
function timeConvert(converterModule) {
  if (converterModule.createConverter.timed) return;
  const create = converterModule.createConverter;
  converterModule.createConverter = function (...args) {
    const converter = create.apply(this, args);
    const convert = converter.convert;
    converter.convert = function (...cell) {
      const started = performance.now();
      try {
        return convert.apply(this, cell);
      } finally {
        record("convert", started);
      }
    };
    return converter;
  };
  converterModule.createConverter.timed = true;
}

if (out) {
  const load = Module._load;
  let inside = false;
  Module._load = function (request, ...rest) {
    if (PACKAGES.has(request) && !inside) {
      inside = true;
      const started = performance.now();
      try {
        return load.call(this, request, ...rest);
      } finally {
        inside = false;
        record(`require ${request}`, started);
      }
    }
    const loaded = load.call(this, request, ...rest);
    if (/tslab[\\/]dist[\\/]converter(\.js)?$/.test(request) || request === "./converter") timeConvert(loaded);
    return loaded;
  };
}
