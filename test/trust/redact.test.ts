// The redaction owner (src/trust/redact.ts) and terminal-safe text (src/trust/text.ts): every form
// a Google-shaped secret can come back in from an echoing server is taken out; nothing a user, a
// file or a server supplied reaches a terminal with a control character in it.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  MIN_SECRET_LENGTH,
  REDACTED,
  basicForms,
  formDecoded,
  formEncoded,
  formsOf,
  redactor,
  scrub,
  scrubDeep,
  scrubbedError,
  secretForms,
  withoutUrlCredentials,
} from "../../dist/trust/redact.js";
import { MAX_SERVER_WORDS, printable, quoted, serverWords } from "../../dist/trust/text.js";

const REFRESH = "1//0gAbC-dEf+gHi/jKl=mNo";
const CLIENT_SECRET = "GOCSPX-s3cr/et+val=ue";
const CODE = "4/0AeaYSHb cD+eF/g";

/** Every way an echoing server could write `secret`, as a test's attacker would try them. */
function echoes(secret: string): string[] {
  const percent = encodeURIComponent(secret);
  const b64 = (text: string) => Buffer.from(text).toString("base64");
  const b64url = (text: string) => Buffer.from(text).toString("base64url");
  return [
    secret,
    percent,
    percent.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
    new URLSearchParams({ v: secret }).toString().slice(2),
    encodeURIComponent(percent),
    JSON.stringify(secret),
    JSON.stringify(secret).replaceAll("/", "\\/"),
    b64(secret),
    b64url(secret),
    // inside longer encoded texts, at every alignment
    b64(`x${secret}`),
    b64(`xy${secret}`),
    b64(`xyz${secret}yz`),
    b64url(`{"refresh_token":"${secret}"}`),
    b64(`client:${secret}`),
    b64(`a-client.apps:${new URLSearchParams({ v: secret }).toString().slice(2)}`),
  ];
}

test("each echo of a Google-shaped secret is taken out, whatever surrounds it", () => {
  const redact = redactor([REFRESH, CLIENT_SECRET, CODE]);
  for (const secret of [REFRESH, CLIENT_SECRET, CODE]) {
    for (const echo of echoes(secret)) {
      const out = redact(`server said: [${echo}] done`);
      assert.ok(out.includes(REDACTED), `${echo} not redacted: ${out}`);
      for (const left of echoes(secret)) assert.ok(!out.includes(left) || left.length < 8, `${left} left in ${out}`);
      assert.ok(out.startsWith("server said: [") && out.endsWith("] done"), out);
    }
  }
});

test("secretForms: raw, percent (both cases, twice), form, JSON (\\/ too), base64 and base64url cores; each once, none under 8", () => {
  const forms = secretForms("ab/c+d=e f");
  assert.equal(new Set(forms).size, forms.length, "each once");
  for (const form of [
    "ab/c+d=e f",
    "ab%2Fc%2Bd%3De%20f",
    "ab%2fc%2bd%3de%20f",
    "ab%2Fc%2Bd%3De+f",
    "ab%2fc%2bd%3de+f",
    "ab%252Fc%252Bd%253De%2520f",
    "ab\\/c+d=e f",
    Buffer.from("ab/c+d=e f").toString("base64").slice(0, 13),
  ])
    assert.ok(forms.includes(form), `${form} missing from ${forms.join(" ")}`);
  assert.ok(secretForms('a"b\ncdefg').includes('a\\"b\\ncdefg'));
  assert.ok(
    secretForms("??>>??>>??>>").some((f) => f.includes("_") || f.includes("-")),
    "base64url has its own alphabet",
  );
  assert.ok(secretForms("??>>??>>??>>").some((f) => f.includes("/") || f.includes("+")));
  // Its base64 holds both "+" and "/": the base64url echo is another text, and is taken out too.
  const urlSafe = Buffer.from("??>>??>>??>>").toString("base64url");
  assert.notEqual(urlSafe, Buffer.from("??>>??>>??>>").toString("base64"));
  assert.equal(redactor(["??>>??>>??>>"])(`[${urlSafe}]`), `[${REDACTED}]`);
  const shifted = Buffer.from("x??>>??>>??>>").toString("base64url");
  assert.ok(redactor(["??>>??>>??>>"])(shifted).includes(REDACTED), "base64url at another alignment");
  assert.deepEqual(secretForms("a b"), []);
  assert.ok(secretForms("abcdefgh").every((f) => f.length >= MIN_SECRET_LENGTH));
  assert.equal(MIN_SECRET_LENGTH, 8);
  // The cores exclude the characters shared with what surrounds the secret.
  const inside = Buffer.from(`${"x".repeat(5)}abcdefghijkl${"y".repeat(5)}`).toString("base64");
  assert.ok(
    secretForms("abcdefghijkl").some((f) => f.length >= 8 && inside.includes(f)),
    "found at any alignment",
  );
  for (const before of [0, 1, 2]) {
    const encoded = Buffer.from(`${"z".repeat(before)}abcdefghijkl`).toString("base64");
    assert.ok(
      secretForms("abcdefghijkl").some((f) => f.length >= 14 && encoded.includes(f)),
      `alignment ${before}`,
    );
  }
});

test("redactor: secrets shorter than 8 and non-strings are ignored; longer forms go first", () => {
  assert.equal(REDACTED, "<redacted by cred-auth>");
  assert.equal(
    redactor([["a", "b", "c", "d", "e", "f", "g", "h"], { length: 9 }])("a,b,c,d,e,f,g,h"),
    "a,b,c,d,e,f,g,h",
  );
  const redact = redactor(["tiny7ch", 42, undefined, null, "abcdefgh", "abcdefghij"]);
  assert.equal(redact("tiny7ch 42 abcdefghij abcdefgh"), `tiny7ch 42 ${REDACTED} ${REDACTED}`);
  assert.equal(redactor([])("nothing to hide"), "nothing to hide");
  const forms = formsOf(["abcdefgh", "abcdefghijkl"]);
  for (let i = 1; i < forms.length; i++) assert.ok(forms[i - 1]!.length >= forms[i]!.length, "longest first");
  assert.deepEqual(formsOf(["abcdefgh", "abcdefgh"]), formsOf(["abcdefgh"]), "each form once");
  assert.equal(scrub("a-secret-x a-secret-x", ["a-secret-x"]), `${REDACTED} ${REDACTED}`);
  assert.equal(scrub("untouched", ["a-secret-x"]), "untouched");
});

test("scrubDeep: strings in plain objects and arrays, 8 levels deep; other objects and values kept", () => {
  const forms = formsOf([REFRESH]);
  const date = new Date(0);
  const input = { a: REFRESH, b: [1, `x${REFRESH}`, { c: REFRESH }], d: date, e: null, f: 7, g: true };
  assert.deepEqual(scrubDeep(input, forms), {
    a: REDACTED,
    b: [1, `x${REDACTED}`, { c: REDACTED }],
    d: date,
    e: null,
    f: 7,
    g: true,
  });
  assert.equal((scrubDeep(input, forms) as { d: unknown }).d, date, "the same object, not a copy");
  let deep: unknown = REFRESH;
  for (let i = 0; i < 12; i++) deep = { n: deep };
  const out = JSON.stringify(scrubDeep(deep, forms));
  assert.ok(out.includes(REFRESH), "past 8 levels nothing is walked (the reply is cut short elsewhere)");
  let nine: unknown = REFRESH;
  for (let i = 0; i < 9; i++) nine = [nine];
  assert.ok(!JSON.stringify(scrubDeep(nine, forms)).includes(REFRESH), "8 levels and the string itself");
  let twelve: unknown = REFRESH;
  for (let i = 0; i < 12; i++) twelve = [twelve];
  assert.ok(JSON.stringify(scrubDeep(twelve, forms)).includes(REFRESH), "arrays count as levels too");
  const fn = () => REFRESH;
  assert.equal(scrubDeep(fn, forms), fn, "a function is left alone");
  assert.equal(scrubDeep(42, forms), 42);
  const withProto = Object.create({ inherited: 1 }) as Record<string, unknown>;
  withProto.own = REFRESH;
  assert.equal(scrubDeep(withProto, forms), withProto, "a class instance is left alone");
  assert.equal(scrubDeep(undefined, forms), undefined);
});

test("form encoding both ways, and Basic credentials as RFC 6749 sends them", () => {
  assert.equal(formEncoded("a b/c+d=e*"), "a+b%2Fc%2Bd%3De*");
  assert.equal(formDecoded("a+b%2Fc%2Bd%3De"), "a b/c+d=e");
  assert.equal(formDecoded("%E0%A4%A"), "%E0%A4%A", "a malformed escape is left as it is");
  assert.deepEqual(basicForms("id", "s/e+c=r et"), [
    Buffer.from("id:s/e+c=r et").toString("base64"),
    Buffer.from("id:s%2Fe%2Bc%3Dr+et").toString("base64"),
  ]);
  assert.deepEqual(basicForms("a b", "x"), [
    Buffer.from("a b:x").toString("base64"),
    Buffer.from("a+b:x").toString("base64"),
  ]);
});

test("printable: C0, DEL, C1 and the characters that reorder or hide text are escaped; the rest is kept", () => {
  assert.equal(printable("plain text, é, 日本, emoji 🔑"), "plain text, é, 日本, emoji 🔑");
  assert.equal(printable("\u001b]0;evil\u0007\u001b[2J"), "\\x1b]0;evil\\x07\\x1b[2J");
  assert.equal(printable("a\nb\rc\td\u0000"), "a\\x0ab\\x0dc\\x09d\\x00");
  assert.equal(printable("\u007f\u0080\u009b\u009d\u009f\u00a0"), "\\x7f\\x80\\x9b\\x9d\\x9f\u00a0");
  assert.equal(
    printable("\u061c\u200b\u200e\u200f\u2028\u2029\u202a\u202e\u2060\u2066\u2069\ufeff"),
    "\\u061c\\u200b\\u200e\\u200f\\u2028\\u2029\\u202a\\u202e\\u2060\\u2066\\u2069\\ufeff",
  );
  assert.equal(printable("\u200a\u202f\u206a"), "\u200a\u202f\u206a", "neighbours of the ranges are kept");
  assert.equal(quoted("/tmp/\u001b[31mred\u009b.json"), '"/tmp/\\u001b[31mred\\x9b.json"');
  assert.equal(quoted('a"b'), '"a\\"b"');
});

test("secretForms lists each encoding once, lower-case hex too, and nothing shorter than 8 characters", () => {
  const forms = secretForms("ab/c+d=e");
  assert.deepEqual(new Set(forms).size, forms.length);
  for (const form of ["ab/c+d=e", "ab%2Fc%2Bd%3De", "ab%2fc%2bd%3de", "ab%252Fc%252Bd%253De", "ab\\/c+d=e"])
    assert.ok(forms.includes(form), `${form} missing from ${forms}`);
  assert.deepEqual(secretForms("a b"), []);
  assert.ok(secretForms('a"b\ncdefg').includes('a\\"b\\ncdefg'));
  assert.ok(secretForms("ab cd ef gh").includes("ab+cd+ef+gh"));
});

test("serverWords: one printable line, whole up to the bound, else cut after a whole word and marked", () => {
  assert.equal(serverWords("  two\n lines\t\x1b[31m here "), "two lines \\x1b[31m here");
  const long = `${"a".repeat(290)} never-cut-mid-word ${"b".repeat(100)}`;
  assert.equal(serverWords(long), long, "past 300 characters, still whole");
  const words = "word ".repeat(300);
  const cut = serverWords(words);
  assert.ok(cut.endsWith("word …"), cut.slice(-20));
  assert.ok(cut.length <= MAX_SERVER_WORDS + 2);
  assert.equal(cut.slice(0, -2), words.slice(0, cut.length - 2), "a prefix of whole words");
  assert.equal(serverWords("x".repeat(MAX_SERVER_WORDS)), "x".repeat(MAX_SERVER_WORDS), "exactly the bound: whole");
  const oneWord = serverWords("y".repeat(MAX_SERVER_WORDS + 5));
  assert.equal(oneWord, `${"y".repeat(MAX_SERVER_WORDS)} …`, "no space at all: cut at the bound");
  assert.equal(serverWords(`${"z ".repeat(600)}\u202e`).includes("\u202e"), false);
});

test("a secret that is itself percent-encoded (an AWS subject token) is taken out decoded too, in every form", () => {
  const decoded = '{"headers":[{"key":"authorization","value":"AWS4 Signature=ab/c+d=="}]}';
  const token = encodeURIComponent(decoded);
  const redact = redactor([token]);
  for (const echo of [token, ...echoes(decoded)]) {
    const out = redact(`server said: [${echo}] done`);
    assert.ok(out.includes(REDACTED) && !out.includes(echo), `${echo} not redacted: ${out}`);
  }
  assert.ok(secretForms("abcdefgh%41").includes("abcdefghA"), "the decoded text");
  assert.ok(secretForms("abcdefgh%41").includes("abcdefgh%2541"), "and the text as it is, encoded");
  // A `+` in a plain secret is its own character, not an encoded space: no "decoded" form with a space.
  assert.ok(!secretForms("abc+defgh").includes("abc defgh"));
  assert.deepEqual(secretForms("abcdefgh"), [...new Set(secretForms("abcdefgh"))], "a plain secret's forms, once each");
  assert.ok(secretForms("abc%zzdefgh").includes("abc%zzdefgh"), "a malformed escape: the text as it is");
});

test("scrubbedError: copies of an error and its causes with every form of the secrets out; name and code kept", () => {
  const root = Object.assign(new Error(`connect failed for ${encodeURIComponent(REFRESH)}`), { code: "ECONNREFUSED" });
  const top = new TypeError(`fetch failed: ${REFRESH}`, { cause: root });
  const copy = scrubbedError(top, [REFRESH]) as Error;
  assert.ok(copy instanceof Error && copy !== top);
  assert.equal(copy.name, "TypeError");
  assert.equal(copy.message, `fetch failed: ${REDACTED}`);
  assert.ok(copy.stack?.startsWith(`TypeError: fetch failed: ${REDACTED}\n`), copy.stack);
  const cause = copy.cause as NodeJS.ErrnoException;
  assert.equal(cause.message, `connect failed for ${REDACTED}`);
  assert.equal(cause.code, "ECONNREFUSED");
  assert.equal("code" in copy, false, "no code where there was none");
  assert.equal("cause" in cause, false, "no cause where there was none");
  assert.equal(scrubbedError(`text ${REFRESH}`, [REFRESH]), `text ${REDACTED}`);
  assert.equal(scrubbedError(42, [REFRESH]), 42);
  const stackless = new Error(REFRESH);
  stackless.stack = undefined;
  assert.equal((scrubbedError(stackless, [REFRESH]) as Error).stack, `Error: ${REDACTED}`);
  let deep: Error = new Error(`deep ${REFRESH}`);
  for (let i = 0; i < 8; i++) deep = new Error(`level ${i}`, { cause: deep });
  let depth = 0;
  for (let e: unknown = scrubbedError(deep, [REFRESH]); e instanceof Error; e = e.cause) depth++;
  assert.equal(depth, 7, "causes are copied six deep, no further");
});

test("withoutUrlCredentials: the user info of every URL is taken out, nothing else", () => {
  assert.equal(
    withoutUrlCredentials("GET http://u:p4ss@127.0.0.1:9/x and HTTPS://only-user@h/y"),
    `GET http://${REDACTED}@127.0.0.1:9/x and HTTPS://${REDACTED}@h/y`,
  );
  for (const text of ["http://host/path@x", "mail me@example.com", "http://h:9/a b@c", "no url here"])
    assert.equal(withoutUrlCredentials(text), text, text);
  assert.equal(withoutUrlCredentials("xhttp://u:p@h/"), "xhttp://u:p@h/".replace("u:p", REDACTED));
  assert.equal(withoutUrlCredentials("git+ssh://me@h/r"), `git+ssh://${REDACTED}@h/r`);
});
