// What a caught value says, read without a cast at each `catch`.

/** The string `code` of a thrown value (a system call's `ENOENT`, a cred-auth `ERR_...`), if it has one. */
export function codeOf(thrown: unknown): string | undefined {
  const code = typeof thrown === "object" && thrown !== null && "code" in thrown ? thrown.code : undefined;
  return typeof code === "string" ? code : undefined;
}

/** The message of a thrown `Error`, else the value in words. */
export function messageOf(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}
