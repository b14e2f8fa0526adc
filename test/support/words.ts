// Counting the words a person reads on a sign-in face (issue 48: at most 60 while it waits).

/** The words of `text`: runs between spaces that hold a letter or a digit (a URL is one word). */
export function wordsOf(text: string): string[] {
  return text.split(/\s+/).filter((word) => /[\p{L}\p{N}]/u.test(word));
}

/** What a browser shows of a card's HTML with its `<details>` folded: their summaries, no tags. */
export function visibleText(html: string): string {
  return html
    .replace(/<details[^>]*>\s*<summary[^>]*>(.*?)<\/summary>.*?<\/details>/gs, " $1 ")
    .replace(/<[^>]+>/g, " ")
    .replace(/&#?\w+;/g, (entity) => (entity === "&#38;" || entity === "&amp;" ? "&" : "'"));
}
