// Relative links in the Markdown docs (README, docs/, examples/) must point at files that exist.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

const root = fileURLToPath(new URL("../../", import.meta.url));
const markdown = (dir: string): string[] =>
  readdirSync(join(root, dir))
    .filter((name) => name.endsWith(".md"))
    .map((name) => join(root, dir, name));

/** `[text](target)` links, minus web addresses, in-page anchors and code spans. */
function relativeLinks(text: string): string[] {
  const withoutCode = text.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...withoutCode.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1] ?? "")
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith("#"));
}

test("relative links in README.md, docs/ and examples/ resolve", () => {
  const files = [...markdown("."), ...markdown("docs"), ...markdown("examples")];
  assert.ok(files.some((f) => f.endsWith(join("docs", "README.md"))));
  const broken: string[] = [];
  for (const file of files) {
    for (const target of relativeLinks(readFileSync(file, "utf8"))) {
      const path = decodeURIComponent(target.split("#")[0] ?? "");
      if (!existsSync(join(dirname(file), path))) broken.push(`${relative(root, file)} -> ${target}`);
    }
  }
  assert.deepEqual(broken, [], `broken links:\n${broken.join("\n")}`);
});

test("the link check sees links", () => {
  assert.deepEqual(relativeLinks("[a](b.md) [c](https://x.test) [d](#e) `[f](g.md)` [h](../i.md#j)"), [
    "b.md",
    "../i.md#j",
  ]);
});
