// A table looked up by a string a file, a server or a user chose: "constructor" or "toString" must
// find nothing, not Object.prototype's function (test/trust/own-properties.test.ts holds src to it).

/** `table[key]` when `table` itself has `key`; undefined otherwise. */
export function own<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
