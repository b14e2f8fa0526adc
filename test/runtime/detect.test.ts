import assert from "node:assert/strict";
import { test } from "node:test";
import { detectRuntime } from "../../dist/runtime/detect.js";
import { hostFacts as host } from "../support/host.ts";
const desktop = { DISPLAY: ":0" };

test("tslab kernel: globalThis.__tslab__ wins over everything else", () => {
  const info = detectRuntime(
    { ...desktop, JPY_PARENT_PID: "12" },
    { __tslab__: { require() {} } },
    host({ stdinIsTTY: false }),
  );
  assert.equal(info.kind, "tslab");
  assert.equal(info.canOpenBrowser, true);
  assert.equal(info.remote, false);
});

test("Deno's kernel: Deno.jupyter", () => {
  assert.equal(
    detectRuntime({ JPY_PARENT_PID: "3" }, { Deno: { jupyter: { display() {} } } }, host()).kind,
    "deno-jupyter",
  );
});

test("Deno without a kernel is not a notebook", () => {
  assert.equal(detectRuntime({}, { Deno: { version: {} } }, host()).kind, "terminal");
});

test("another Jupyter kernel: JPY_PARENT_PID", () => {
  const info = detectRuntime({ JPY_PARENT_PID: "99" }, {}, host({ stdinIsTTY: false, stderrIsTTY: false }));
  assert.equal(info.kind, "jupyter");
});

test("an empty __tslab__ or JPY_PARENT_PID does not make a kernel", () => {
  assert.equal(detectRuntime({ JPY_PARENT_PID: "" }, { __tslab__: undefined }, host()).kind, "terminal");
});

test("interactive terminal: stdin and stderr are TTYs, stdout may be redirected", () => {
  const info = detectRuntime(desktop, {}, host({ stdoutIsTTY: false }));
  assert.equal(info.kind, "terminal");
  assert.equal(info.ci, false);
});

test("pipe: stdin is not a TTY", () => {
  const info = detectRuntime(desktop, {}, host({ stdinIsTTY: false }));
  assert.equal(info.kind, "pipe");
});

test("pipe: stderr is not a TTY", () => {
  assert.equal(detectRuntime(desktop, {}, host({ stderrIsTTY: false })).kind, "pipe");
});

test("CI: a TTY under CI is still a pipe, and no browser is opened", () => {
  for (const env of [{ CI: "true" }, { GITHUB_ACTIONS: "true" }, { GITLAB_CI: "1" }, { JENKINS_URL: "http://ci" }]) {
    const info = detectRuntime({ ...desktop, ...env }, {}, host());
    assert.equal(info.kind, "pipe", JSON.stringify(env));
    assert.equal(info.ci, true);
    assert.equal(info.canOpenBrowser, false);
  }
});

test("CI=false and CI=0 are not CI", () => {
  for (const CI of ["false", "0", ""]) {
    const info = detectRuntime({ ...desktop, CI }, {}, host());
    assert.equal(info.ci, false, CI);
    assert.equal(info.kind, "terminal");
  }
});

test("Linux without a display server cannot open a browser", () => {
  const info = detectRuntime({}, {}, host());
  assert.equal(info.canOpenBrowser, false);
  assert.equal(info.remote, false);
  assert.ok(info.reasons.some((r) => r.includes("display")));
  for (const name of ["DISPLAY", "WAYLAND_DISPLAY", "MIR_SOCKET"]) {
    assert.equal(detectRuntime({ [name]: "x" }, {}, host()).canOpenBrowser, true, name);
  }
});

test("macOS and Windows need no DISPLAY; WSL opens the Windows browser", () => {
  assert.equal(detectRuntime({}, {}, host({ platform: "darwin" })).canOpenBrowser, true);
  assert.equal(detectRuntime({}, {}, host({ platform: "win32" })).canOpenBrowser, true);
  assert.equal(detectRuntime({ WSL_DISTRO_NAME: "Ubuntu" }, {}, host()).canOpenBrowser, true);
});

test("BROWSER=none: no browser", () => {
  const info = detectRuntime({ ...desktop, BROWSER: "none" }, {}, host({ platform: "darwin" }));
  assert.equal(info.canOpenBrowser, false);
  assert.equal(info.remote, false);
});

test("an explicit BROWSER command opens a browser even over SSH or in CI (remote stays true)", () => {
  const info = detectRuntime({ SSH_TTY: "/dev/pts/1", CI: "1", BROWSER: "/usr/bin/code-browser" }, {}, host());
  assert.equal(info.canOpenBrowser, true);
  assert.equal(info.remote, true);
});

test("SSH: remote, no browser", () => {
  for (const name of ["SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY"]) {
    const info = detectRuntime({ ...desktop, [name]: "10.0.0.1 5000 10.0.0.2 22" }, {}, host());
    assert.equal(info.remote, true, name);
    assert.equal(info.canOpenBrowser, false);
    assert.equal(info.kind, "terminal");
  }
});

test("container: remote, no browser; the marker check runs only when needed", () => {
  let checks = 0;
  const inContainer = () => {
    checks++;
    return true;
  };
  const info = detectRuntime(desktop, {}, host({ inContainer }));
  assert.equal(info.remote, true);
  assert.equal(info.canOpenBrowser, false);
  assert.equal(checks, 1);
  detectRuntime({ SSH_TTY: "/dev/pts/1" }, {}, host({ inContainer }));
  assert.equal(checks, 1);
});

test("the user's word on remote (given by the plan) overrides the detection both ways, and is the reason", () => {
  let checks = 0;
  const inContainer = () => {
    checks++;
    return true;
  };
  const said = { remote: false, saidBy: "CRED_AUTH_REMOTE=0" };
  const local = detectRuntime({ ...desktop, SSH_TTY: "/dev/pts/1" }, {}, host({ inContainer }), said);
  assert.equal(local.remote, false);
  assert.ok(local.reasons.includes("local: CRED_AUTH_REMOTE=0"), local.reasons.join("; "));
  assert.equal(local.canOpenBrowser, true, "a local machine with a display can open one");
  assert.equal(checks, 0, "nothing detected when the user said");
  const remote = detectRuntime(desktop, {}, host(), { remote: true, saidBy: "the remote setting (cred-auth config)" });
  assert.equal(remote.remote, true);
  assert.ok(remote.reasons.includes("remote: the remote setting (cred-auth config)"));
  assert.equal(
    detectRuntime({ ...desktop, CRED_AUTH_REMOTE: "1" }, {}, host()).remote,
    false,
    "the variable is the plan's to read",
  );
});

test("hosted and cloud workspaces are remote", () => {
  for (const env of [
    { COLAB_RELEASE_TAG: "r1" },
    { VERTEX_PRODUCT: "WORKBENCH_INSTANCE" },
    { CLOUD_SHELL: "true" },
    { JUPYTERHUB_USER: "ann" },
    { CODESPACES: "true" },
  ]) {
    assert.equal(detectRuntime({ ...desktop, ...env }, {}, host()).remote, true, JSON.stringify(env));
  }
});

test("a notebook server on another host is remote; on loopback or this host it is not", () => {
  const kernel = { __tslab__: {} };
  const remote = (url: string) => detectRuntime({ ...desktop, JUPYTER_SERVER_URL: url }, kernel, host()).remote;
  assert.equal(remote("http://notebooks.example.com:8888/"), true);
  assert.equal(remote("http://10.1.2.3:8888/"), true);
  for (const url of [
    "http://localhost:8888/",
    "http://127.0.0.1:8888/",
    "http://[::1]:8888/",
    "http://devbox:8888/",
    "http://0.0.0.0:8888/",
    "not a url",
  ]) {
    assert.equal(remote(url), false, url);
  }
});

test("the browser verdict the sign-in uses: a desktop can open one, an SSH session cannot", () => {
  const local = detectRuntime(desktop, {}, host());
  const remote = detectRuntime({ SSH_TTY: "/dev/pts/0" }, {}, host());
  assert.equal(local.remote, false);
  assert.equal(local.canOpenBrowser, true);
  assert.equal(remote.remote, true);
  assert.equal(remote.canOpenBrowser, false);
});

test("defaults read the current process without throwing", () => {
  const info = detectRuntime();
  assert.ok(["tslab", "deno-jupyter", "jupyter", "terminal", "pipe"].includes(info.kind));
  assert.ok(info.reasons.length > 0);
});
