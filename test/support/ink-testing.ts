// ink-testing-library over the ink and React the package ships. The build puts ink, React and
// ink-text-input into dist/vendor/ (scripts/build.mjs, vendorPackages) and the terminal face takes them
// from there; a test that drew it with node_modules' ink would run two Reacts, and hooks fail. So
// "ink", "react", ... resolve to dist/vendor/ for the code that imports them from here on (this
// process), and ink-testing-library is imported after that.
import { existsSync } from "node:fs";
import { registerHooks } from "node:module";
import { pathToFileURL } from "node:url";

const VENDOR = new URL("../../dist/vendor/", import.meta.url);

registerHooks({
  resolve(specifier, context, next) {
    if (context.parentURL?.startsWith(VENDOR.href) || specifier.startsWith(".") || specifier.startsWith("node:"))
      return next(specifier, context);
    const file = [".js", ".mjs"].map((ext) => new URL(`${specifier}${ext}`, VENDOR)).find((u) => existsSync(u));
    return file ? { url: pathToFileURL(file.pathname).href, shortCircuit: true } : next(specifier, context);
  },
});

const library = await import("ink-testing-library");

export const { render, cleanup } = library;
