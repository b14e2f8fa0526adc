/** The emulator's HTML: consent page, error page, code page. Every value is escaped. */
import { escapeHtml as e } from "./http.js";

const STYLE = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f1f3f4;color:#202124;margin:0}
main{max-width:480px;margin:48px auto;background:#fff;border:1px solid #dadce0;border-radius:8px;padding:32px}
h1{font-size:24px;font-weight:400;margin:0 0 8px} .muted{color:#5f6368;font-size:14px}
ul.scopes{padding-left:20px;font-size:14px} fieldset{border:0;padding:0;margin:16px 0}
label.account{display:flex;gap:12px;align-items:center;padding:10px;border:1px solid #dadce0;border-radius:6px;margin:6px 0;cursor:pointer}
.actions{display:flex;justify-content:flex-end;gap:12px;margin-top:24px}
button{font-size:14px;padding:8px 24px;border-radius:4px;border:1px solid #dadce0;background:#fff;cursor:pointer}
button.primary{background:#1a73e8;color:#fff;border-color:#1a73e8}
code#code{display:block;word-break:break-all;background:#f1f3f4;padding:12px;border-radius:4px;font-size:15px;margin:12px 0}
.warning{background:#fef7e0;border:1px solid #f9ab00;border-radius:4px;padding:10px;font-size:14px}
.error{color:#d93025}`;

function page(title: string, body: string, script = ""): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${e(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>${script ? `\n<script>${script}</script>` : ""}
</body>
</html>
`;
}

export const CONSENT_TITLE = "Sign in - cred-auth emulator";

export interface ConsentView {
  action: string;
  requestId: string;
  clientName: string;
  /** Every scope asked, in Google's spelling. */
  scopes: string[];
  /** Those the user may untick (granular consent): a checkbox each, ticked to start. */
  optional: string[];
  accounts: string[];
  selected: string;
}

export function consentPage(view: ConsentView): string {
  const accounts = view.accounts
    .map((account, i) => {
      const id = `account-${i}`;
      const checked = account === view.selected ? " checked" : "";
      return `<label class="account" for="${id}"><input type="radio" id="${id}" name="account" value="${e(account)}"${checked}> <span>${e(account)}</span></label>`;
    })
    .join("\n");
  const scopes = view.scopes
    .map((scope, i) =>
      view.optional.includes(scope)
        ? `<li><label><input type="checkbox" id="scope-${i}" name="scope" value="${e(scope)}" checked> ${e(scope)}</label></li>`
        : `<li>${e(scope)}</li>`,
    )
    .join("\n");
  return page(
    CONSENT_TITLE,
    `<h1>Sign in</h1>
<p class="muted">to continue to <strong id="client-name">${e(view.clientName)}</strong> (cred-auth emulator: test accounts only)</p>
<form method="post" action="${e(view.action)}">
<input type="hidden" name="request_id" value="${e(view.requestId)}">
<fieldset>
<legend>Choose an account</legend>
${accounts}
</fieldset>
<p>${e(view.clientName)} wants to access your Google Account:</p>
<ul class="scopes" id="scopes">
${scopes}
</ul>
<div class="actions">
<button type="submit" name="decision" value="deny">Deny</button>
<button type="submit" name="decision" value="allow" class="primary">Allow</button>
</div>
</form>`,
  );
}

/** Google's "Error 400: invalid_request" style page (401 for a refused client), shown when a request cannot go back to the app. */
export function errorPage(error: string, description: string, status = 400): string {
  const title =
    error === "invalid_scope"
      ? "Authorization Error"
      : `Access blocked: ${status === 401 ? "authorization error" : "this request is invalid"}`;
  return page(
    `Error - cred-auth emulator`,
    `<h1>${title}</h1>
<p class="error"><strong>Error ${status}: <span id="error">${e(error)}</span></strong></p>
<p id="error-description">${e(description)}</p>`,
  );
}

const COPY_SCRIPT = `document.getElementById("copy").addEventListener("click",function(){
var code=document.getElementById("code").textContent;var status=document.getElementById("copy-status");
function done(){status.textContent="Copied.";}
if(navigator.clipboard){navigator.clipboard.writeText(code).then(done,function(){status.textContent="Select the code and copy it.";});}
else{var r=document.createRange();r.selectNodeContents(document.getElementById("code"));var s=getSelection();s.removeAllRanges();s.addRange(r);status.textContent="Press Ctrl+C to copy.";}
});`;

/** `shown` is what the application asks to be pasted: `CODE~STATE`, or CODE without a state. */
export function codePage(shown: string): string {
  return page(
    "Authorization code - cred-auth emulator",
    `<h1>Sign in complete</h1>
<p>Copy this code and paste it into the application that asked for it:</p>
<code id="code">${e(shown)}</code>
<div class="actions"><span id="copy-status" class="muted" aria-live="polite"></span><button type="button" id="copy" class="primary">Copy</button></div>
<p class="warning" id="warning"><strong>This code is like a password: do not share it with anyone.</strong> Paste it only into the application you are signing in to.</p>`,
    COPY_SCRIPT,
  );
}

export function codeErrorPage(error: string, description?: string): string {
  return page(
    "Sign-in failed - cred-auth emulator",
    `<h1>Sign-in failed</h1>
<p class="error" id="error">${e(error)}</p>${description ? `\n<p id="error-description">${e(description)}</p>` : ""}
<p>Go back to the application and start the sign-in again.</p>`,
  );
}

export function indexPage(baseUrl: string, paths: Record<string, string>): string {
  const rows = Object.entries(paths)
    .map(([name, path]) => `<li><strong>${e(name)}</strong>: <code>${e(baseUrl + path)}</code></li>`)
    .join("\n");
  return page(
    "cred-auth emulator",
    `<h1>cred-auth emulator</h1>
<p class="muted">A local Google-compatible identity provider for tests. Test accounts only; nothing here is real.</p>
<ul>
${rows}
</ul>`,
  );
}
