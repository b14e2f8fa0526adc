// The install's size as README.md and docs/getting-started.md state it stays the size bench/footprint.mjs
// measures (CI runs it, and it fails on a page that drifted): here, that each page states it in the form
// the script reads, that the pages agree, and that the script's check reports a drift (issue 46).
import assert from "node:assert/strict";
import { test } from "node:test";
import { ROOT } from "./support.ts";

interface Addition {
  packages: number;
  megabytes: number;
}
/** bench/lib/footprint-docs.mjs (plain JavaScript, imported by a path TypeScript does not follow). */
const lib = "../../bench/lib/footprint-docs.mjs";
const { statedAddition, sizeDrift, sizePages } = (await import(lib)) as {
  statedAddition(text: string): Addition | undefined;
  sizeDrift(pages: Record<string, string>, measured: { packages: number; bytes: number }): string[];
  sizePages(root: string): Record<string, string>;
};

const pages = sizePages(ROOT);

test("README.md and docs/getting-started.md each state what the install adds, the same figures", () => {
  const stated = Object.entries(pages).map(([page, text]) => [page, statedAddition(text)] as const);
  for (const [page, addition] of stated) assert.ok(addition, `${page} says "adds N packages and X MB"`);
  assert.equal(new Set(stated.map(([, a]) => JSON.stringify(a))).size, 1, JSON.stringify(stated));
});

test("the footprint's check passes the pages' own figure and reports another count or a size 10% off", () => {
  const stated = statedAddition(pages["README.md"] ?? "");
  assert.ok(stated);
  const bytes = stated.megabytes * 1e6;
  assert.deepEqual(sizeDrift(pages, { packages: stated.packages, bytes: bytes * 1.05 }), []);
  const more = sizeDrift(pages, { packages: stated.packages + 1, bytes });
  assert.equal(more.length, 2, more.join("\n"));
  assert.match(more[0] ?? "", /README\.md says \d+ packages and [\d.]+ MB; measured \d+ and [\d.]+ MB/);
  assert.equal(sizeDrift(pages, { packages: stated.packages, bytes: bytes * 1.2 }).length, 2);
  assert.deepEqual(sizeDrift({ "README.md": "no figure here" }, { packages: 3, bytes }), [
    'README.md no longer says "adds N packages and X MB"',
  ]);
});
