// A child process that saves credentials, for the crash tests (plain JavaScript: it is started
// hundreds of times, and type stripping would slow each start):
//   node saver.mjs file  PATH SLOT START loop|once   (writeUserCredentialsFile)
//   node saver.mjs cache HOME SLOT START loop|once   (a ReadWriteCredentialsCache's save(), under HOME)
// `loop` writes document START, START+1, ... until killed, printing "w" after each; `once`
// waits for a line on stdin, then writes document START once. Prints "ready" first.
import { createInterface } from "node:readline";
import { credentialsDocument } from "./documents.mjs";

const [how, where, slotText, startText, repeat] = process.argv.slice(2);
const slot = Number(slotText);
const start = Number(startText);

const save = await saver(how, where);
process.stdout.write("ready\n");
if (repeat === "once") {
  await new Promise((resolve) => createInterface({ input: process.stdin }).once("line", resolve));
  await save(start);
  process.exit(0);
}
for (let n = start; ; n++) {
  await save(n);
  process.stdout.write("w\n");
}

async function saver(kind, target) {
  if (kind === "file") {
    const { writeUserCredentialsFile } = await import("../../dist/stores/credentials-file.js");
    return (n) => writeUserCredentialsFile(target, credentialsDocument(slot, n));
  }
  process.env.HOME = target;
  const { ReadWriteCredentialsCache } = await import("../../dist/credentials-cache/disk.js");
  const { userRefreshClientFrom } = await import("../../dist/credentials/kinds/user/client.js");
  await userRefreshClientFrom(credentialsDocument(slot, start)); // loads google-auth-library before "ready"
  const cache = new ReadWriteCredentialsCache();
  return async (n) => cache.save(await userRefreshClientFrom(credentialsDocument(slot, n)));
}
