// The notebook card in real Chromium, on the themes it meets: JupyterLab's light and dark
// themes (their CSS variables) and pages without them (VS Code, Colab, nbconvert's HTML), where
// the card inherits the page's colours. Every piece of text must reach WCAG AA (4.5:1).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { renderSignInHtml } from "../../dist/ui/notebook.js";
import type { SignInEvent } from "../../dist/oauth/events.js";
import { INITIAL_STATE, reduce, type ViewState } from "../../dist/ui/view-state.js";
import { CredCancelledError, CredCredentialsError } from "cred-auth";
import { chromium } from "playwright-core";
import { CHROMIUM, chromiumAvailable } from "../support/chromium.ts";
import { wordsOf } from "../support/words.ts";

const skip = chromiumAvailable("the card contrast test") ? false : "no Chromium";

const URL =
  "https://accounts.google.com/o/oauth2/v2/auth?response_type=code&client_id=123-abc.apps.googleusercontent.com&redirect_uri=http%3A%2F%2Flocalhost%3A8080%2F&scope=openid%20https%3A%2F%2Fwww.googleapis.com%2Fauth%2Fcloud-platform&state=abcdefghijklmnopqrstuvwxyz0123456789&code_challenge=0123456789abcdefghijklmnopqrstuvwxyzABCDEFG&code_challenge_method=S256&access_type=offline";
const SCOPES = ["https://www.googleapis.com/auth/cloud-platform", "openid"];

const state = (...events: SignInEvent[]): ViewState => events.reduce(reduce, INITIAL_STATE);
const url = (mode: "loopback" | "paste"): SignInEvent => ({
  type: "url",
  url: URL,
  mode,
  scopes: SCOPES,
  browserOpened: false,
});

/** Every state the card can show. */
const STATES: Record<string, ViewState> = {
  preparing: INITIAL_STATE,
  waiting: state(url("loopback"), { type: "waiting" }),
  "waiting, paste back, refused": state(url("loopback"), {
    type: "waiting",
    paste: true,
    rejected: new CredCredentialsError("The code was not accepted: it is wrong, already used or expired."),
  }),
  code: state(url("paste"), { type: "code-needed" }),
  checking: { ...state(url("paste"), { type: "code-needed" }), phase: "checking" },
  "signed in": state(url("loopback"), {
    type: "signed-in",
    account: "ann@example.com",
    savedTo: "/home/ann/.config/cred/cred_credentials.json",
  }),
  failed: state(url("loopback"), { type: "failed", error: new CredCredentialsError("Access was denied.") }),
  cancelled: state(url("loopback"), { type: "failed", error: new CredCancelledError("The sign-in was cancelled.") }),
};

/** JupyterLab 4's theme variables the card uses (theme-light-extension, theme-dark-extension). */
const JUPYTERLAB_LIGHT = `
  --jp-layout-color0: #ffffff; --jp-content-font-color1: rgba(0, 0, 0, 1);
  --jp-border-color1: #bdbdbd; --jp-brand-color1: #1976d2; --jp-success-color1: #43a047;
  --jp-error-color1: #e53935; --jp-ui-font-family: system-ui, sans-serif; --jp-code-font-family: monospace;`;
const JUPYTERLAB_DARK = `
  --jp-layout-color0: #111111; --jp-content-font-color1: rgba(255, 255, 255, 1);
  --jp-border-color1: #616161; --jp-brand-color1: #1976d2; --jp-success-color1: #43a047;
  --jp-error-color1: #e53935; --jp-ui-font-family: system-ui, sans-serif; --jp-code-font-family: monospace;`;

/** The pages: each a root style and the colours of the page around the output. */
const THEMES: Record<string, string> = {
  "JupyterLab light": `:root{${JUPYTERLAB_LIGHT}} body{background:var(--jp-layout-color0);color:var(--jp-content-font-color1)}`,
  "JupyterLab dark": `:root{${JUPYTERLAB_DARK}} body{background:var(--jp-layout-color0);color:var(--jp-content-font-color1)}`,
  "no variables, light (Colab, nbconvert)": "body{background:#ffffff;color:#1f1f1f}",
  "no variables, dark (VS Code Dark+)": "body{background:#1e1e1e;color:#cccccc}",
};

let browser: Browser;
let page: Page;

before(async () => {
  if (skip) return;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });
  page = await browser.newPage();
});

after(async () => {
  await browser?.close();
});

/** Each text run of the card with its colour composited over what is behind it, and the ratio. */
interface Measured {
  text: string;
  ratio: number;
}

async function measure(themeCss: string, cardHtml: string): Promise<Measured[]> {
  await page.setContent(`<!doctype html><html><head><style>${themeCss}</style></head><body>${cardHtml}</body></html>`);
  // The address is behind a collapsed line: open it, so it is measured too.
  await page.evaluate(() => {
    document.querySelectorAll("details").forEach((details) => {
      details.open = true;
    });
  });
  return page.evaluate(() => {
    type Rgba = [number, number, number, number];
    const parse = (css: string): Rgba => {
      const m = css.match(/rgba?\(([^)]+)\)/);
      if (!m) throw new Error(`unexpected colour ${css}`);
      const [r = 0, g = 0, b = 0, a = 1] = m[1]!
        .split(/[,\s/]+/)
        .filter(Boolean)
        .map(Number);
      return [r, g, b, a];
    };
    const over = (top: Rgba, below: Rgba): Rgba => {
      const a = top[3];
      return [0, 1, 2].map((i) => top[i]! * a + below[i]! * (1 - a)).concat(1) as Rgba;
    };
    const background = (element: Element | null): Rgba => {
      const layers: Rgba[] = [];
      for (let e = element; e; e = e.parentElement) layers.push(parse(getComputedStyle(e).backgroundColor));
      let colour: Rgba = [255, 255, 255, 1]; // the canvas
      for (const layer of layers.reverse()) colour = over(layer, colour);
      return colour;
    };
    const luminance = ([r, g, b]: Rgba): number => {
      const channel = (v: number) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
    };
    const results: Array<{ text: string; ratio: number }> = [];
    const walker = document.createTreeWalker(document.querySelector(".cred-auth-sign-in")!, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent?.trim();
      const element = node.parentElement;
      if (!text || !element) continue;
      const behind = background(element);
      const fore = over(parse(getComputedStyle(element).color), behind);
      const [light, dark] = [luminance(fore), luminance(behind)].sort((x, y) => y - x) as [number, number];
      results.push({ text: text.slice(0, 60), ratio: (light + 0.05) / (dark + 0.05) });
    }
    return results;
  });
}

for (const [themeName, themeCss] of Object.entries(THEMES)) {
  test(`every state of the card reaches WCAG AA (4.5:1) on ${themeName}`, { skip }, async () => {
    for (const [stateName, viewState] of Object.entries(STATES)) {
      for (const entry of ["second-cell", "prompt"] as const) {
        const measured = await measure(themeCss, renderSignInHtml(viewState, entry));
        assert.ok(measured.length > 0, `${stateName}: the card has text`);
        for (const { text, ratio } of measured) {
          assert.ok(ratio >= 4.5, `${themeName}, ${stateName}: "${text}" has contrast ${ratio.toFixed(2)}:1`);
        }
      }
    }
  });
}

test("the address is collapsed, and one click selects all of it", { skip }, async () => {
  await page.setContent(`<!doctype html><body>${renderSignInHtml(STATES.waiting!)}</body>`);
  assert.equal(await page.isVisible("[data-cred-auth-url]"), false, "collapsed at first");
  await page.click("summary");
  await page.click("[data-cred-auth-url]");
  const selected = await page.evaluate(() => window.getSelection()?.toString() ?? "");
  assert.equal(selected.replace(/\s+/g, ""), URL, "the whole address is selected, nothing else");
});

test("a waiting card shows at most 60 words in Chromium, its details folded (issue 48)", { skip }, async () => {
  const folded = [
    "CRED_AUTH_EMULATOR_HOST: using the local emulator at http://127.0.0.1:9, not Google.",
    "copy-paste sign-in: this machine looks remote (inside a container (/.dockerenv)) and a code page is configured.",
  ];
  const all = [...SCOPES, "https://www.googleapis.com/auth/userinfo.email"];
  const waiting: Array<[string, ViewState, "second-cell" | "prompt"]> = [
    ["copy-paste, tslab", { ...STATES.code!, scopes: all }, "second-cell"],
    ["copy-paste, Deno", { ...STATES.code!, scopes: all }, "prompt"],
    ["loopback", { ...STATES.waiting!, scopes: all }, "second-cell"],
    [
      "loopback, address pasted back",
      { ...STATES["waiting, paste back, refused"]!, rejected: undefined, scopes: all },
      "second-cell",
    ],
  ];
  for (const [name, viewState, entry] of waiting) {
    await page.setContent(`<!doctype html><body>${renderSignInHtml({ ...viewState, folded }, entry)}</body>`);
    const words = wordsOf(await page.innerText(".cred-auth-sign-in"));
    console.log(`the waiting card (${name}): ${words.length} words`);
    assert.ok(words.length <= 60, `${name}: at most 60 words, not ${words.length}: ${words.join(" ")}`);
    assert.ok(!words.includes("looks"), `${name}: the details are folded`);
  }
});

test("the card holds no glyph that needs a colour-emoji font", () => {
  for (const viewState of Object.values(STATES)) {
    for (const entry of ["second-cell", "prompt"] as const) {
      const html = renderSignInHtml(viewState, entry);
      assert.doesNotMatch(html, /\p{Extended_Pictographic}/u, `no emoji in ${viewState.phase}`);
    }
  }
});
