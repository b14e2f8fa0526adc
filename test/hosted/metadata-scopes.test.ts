// Which requested scopes a VM's access scopes cover (src/hosted/metadata-scopes.ts): the same scope,
// either spelling of email/profile, or cloud-platform for a Google Cloud API's scope, never for
// sign-in, Google Workspace or consumer scopes; and the metadata server's list read strictly.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseVmScopes, scopesBeyond } from "../../dist/hosted/metadata-scopes.js";

const AUTH = "https://www.googleapis.com/auth/";
const CLOUD = `${AUTH}cloud-platform`;

test("cloud-platform covers Google Cloud's scopes, not sign-in, Workspace or consumer ones", () => {
  const cloud = ["bigquery", "bigquery.readonly", "devstorage.read_write", "pubsub", "compute", "sqlservice.login"];
  assert.deepEqual(
    scopesBeyond(
      [CLOUD],
      cloud.map((s) => AUTH + s),
    ),
    [],
  );
  const beyond = [
    "drive",
    "drive.readonly",
    "drive.file",
    "spreadsheets.readonly",
    "documents",
    "presentations",
    "forms.body",
    "gmail.send",
    "calendar",
    "contacts.readonly",
    "tasks",
    "chat.messages",
    "classroom.courses",
    "admin.directory.user",
    "apps.groups.settings",
    "script.projects",
    "keep",
    "photoslibrary",
    "youtube",
    "yt-analytics.readonly",
    "fitness.activity.read",
    "blogger",
    "books",
    "directory.readonly",
    "plus.me",
    "userinfo.email",
    "userinfo.profile",
  ].map((s) => AUTH + s);
  assert.deepEqual(scopesBeyond([CLOUD], beyond), beyond);
  for (const other of ["openid", "email", "profile", "https://mail.google.com/", "https://www.google.com/m8/feeds"])
    assert.deepEqual(scopesBeyond([CLOUD], [other]), [other], other);
  assert.deepEqual(scopesBeyond([CLOUD], [`${AUTH}drivex`]), [], "a Cloud API's name that merely starts alike");
});

test("without cloud-platform only the same scopes count; email and profile in either spelling", () => {
  const vm = [`${AUTH}devstorage.read_only`, `${AUTH}logging.write`, `${AUTH}userinfo.email`];
  assert.deepEqual(scopesBeyond(vm, [`${AUTH}devstorage.read_only`, "email"]), []);
  assert.deepEqual(scopesBeyond(vm, [`${AUTH}bigquery`, CLOUD]), [`${AUTH}bigquery`, CLOUD]);
  assert.deepEqual(scopesBeyond(vm, []), []);
  assert.deepEqual(scopesBeyond([`${AUTH}cloud-platform.read-only`], [`${AUTH}bigquery.readonly`]), [
    `${AUTH}bigquery.readonly`,
  ]);
  assert.deepEqual(scopesBeyond([`${AUTH}userinfo.profile`], ["profile"]), []);
});

test("the metadata server's list: one scope a line, every line a scope, else nothing to judge by", () => {
  assert.deepEqual(parseVmScopes(`${CLOUD}\n${AUTH}userinfo.email\n`), [CLOUD, `${AUTH}userinfo.email`]);
  assert.deepEqual(parseVmScopes(`  ${CLOUD}  \r\n\n`), [CLOUD]);
  for (const bad of ["", "\n", "<html>Not Found</html>", `${CLOUD}\nnot a scope`, "http://x/y"])
    assert.equal(parseVmScopes(bad), undefined, JSON.stringify(bad));
  assert.equal(parseVmScopes(Array(101).fill(CLOUD).join("\n")), undefined, "no VM has a hundred scopes");
  assert.equal(parseVmScopes(Array(100).fill(CLOUD).join("\n"))?.length, 100);
});
