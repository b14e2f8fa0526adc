// The install's size as the docs state it (README.md, docs/getting-started.md: "cred-auth adds N packages
// and X MB"), held against what bench/footprint.mjs measures, so a page never keeps an old figure.
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** The pages that state the install's size, relative to the repository. */
export const SIZE_PAGES = ["README.md", "docs/getting-started.md"];

/** How far a stated size may be from the measured one (code grows a little between releases). */
export const BYTES_TOLERANCE = 0.1;

/** "adds 3 packages and 6.9 MB" in `text` (line breaks allowed), or undefined. */
export function statedAddition(text) {
  const m = /adds\s+(\d+)\s+packages\s+and\s+(\d+(?:\.\d+)?)\s+MB/.exec(text);
  return m ? { packages: Number(m[1]), megabytes: Number(m[2]) } : undefined;
}

/**
 * What each page gets wrong about `measured` ({ packages, bytes } cred-auth adds): a missing statement,
 * another package count, or a size more than BYTES_TOLERANCE away. `pages` maps a page's name to its text.
 */
export function sizeDrift(pages, measured) {
  const problems = [];
  const megabytes = measured.bytes / 1e6;
  for (const [page, text] of Object.entries(pages)) {
    const stated = statedAddition(text);
    if (!stated) problems.push(`${page} no longer says "adds N packages and X MB"`);
    else if (
      stated.packages !== measured.packages ||
      Math.abs(stated.megabytes - megabytes) > megabytes * BYTES_TOLERANCE
    )
      problems.push(
        `${page} says ${stated.packages} packages and ${stated.megabytes} MB; measured ${measured.packages} and ${megabytes.toFixed(1)} MB`,
      );
  }
  return problems;
}

/** The texts of SIZE_PAGES in the repository at `root`. */
export function sizePages(root) {
  return Object.fromEntries(SIZE_PAGES.map((page) => [page, readFileSync(join(root, page), "utf8")]));
}
