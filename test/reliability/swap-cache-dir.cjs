// Preloaded into a victim's CLI (local-attacker.test.ts): the attacker wins the race. The first
// time the victim reaches into the token cache directory $SWAP_DIR (by its path, or through a
// descriptor at /proc/self/fd/N), the attacker (uid $SWAP_UID), who owns the directory above it,
// moves it aside and puts a link to $SWAP_TARGET, their own directory, in its place.
const fs = require("node:fs");
const { spawnSync } = require("node:child_process");

const dir = process.env.SWAP_DIR;
const target = process.env.SWAP_TARGET;
const uid = Number(process.env.SWAP_UID);
let swapped = false;

function swap() {
  swapped = true;
  const script =
    "const fs = require('fs'); fs.renameSync(process.argv[1], process.argv[1] + '.real'); fs.symlinkSync(process.argv[2], process.argv[1]);";
  const child = spawnSync(process.execPath, ["-e", script, "--", dir, target], { uid, gid: uid, encoding: "utf8" });
  if (child.status !== 0) throw new Error(`the swap failed: ${child.stderr}`);
}

for (const name of ["openSync", "statSync", "lstatSync"]) {
  const original = fs[name];
  fs[name] = function (path, ...rest) {
    const text = typeof path === "string" ? path : "";
    if (!swapped && dir && (text.startsWith(`${dir}/`) || text.startsWith("/proc/self/fd/"))) swap();
    return original.call(this, path, ...rest);
  };
}
