"""Executes a notebook on a real Jupyter kernel (nbclient) and reports sign-in links live.

Usage: python3 run_notebook.py NOTEBOOK OUTPUT

The kernel is the one named in the notebook's metadata, found through JUPYTER_PATH, and
starts in the notebook's directory. While a cell runs, every sign-in link that appears in
a display (the href of cred-auth's "Sign in with Google" button) is printed to stdout as
one JSON line, {"event": "sign-in", "url": ..., "cell": N}, so a test can drive the consent
page like a browser while the notebook waits; every state a sign-in card shows is printed
as {"event": "card", "status": ..., "cell": N, "completeSignIn": bool, "plain": its text/plain, "html": its HTML}. A cell holding a placeholder
(PASTE-THE-CODE-HERE, PASTE-THE-ADDRESS-HERE) waits for a line on stdin, the code a person would paste there
({"event": "code-needed", "cell": N} is printed first). At the end the executed notebook
is written to OUTPUT and {"event": "done", "ok": true|false, "error": ...} is printed.
"""
import asyncio
import html
import json
import os
import re
import sys

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

SIGN_IN_LINK = re.compile(r'<a href="([^"]+)"[^>]*>Sign in with Google</a>')
CARD_STATUS = re.compile(r'data-cred-auth-status="([^"]+)"')
PLACEHOLDERS = ("PASTE-THE-CODE-HERE", "PASTE-THE-ADDRESS-HERE")


def say(event):
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


class ReportingClient(NotebookClient):
    """An nbclient that looks at each output message as it arrives."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.seen = set()

    async def async_execute_cell(self, cell, cell_index, *args, **kwargs):
        placeholder = next((p for p in PLACEHOLDERS if cell.cell_type == "code" and p in cell.source), None)
        if placeholder:
            say({"event": "code-needed", "cell": cell_index})
            code = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
            cell.source = cell.source.replace(placeholder, code.strip())
        result = await super().async_execute_cell(cell, cell_index, *args, **kwargs)
        if "raises-exception" in cell.metadata.get("tags", []):
            # tslab aborts every request that arrives within 200 ms of a failed cell (it
            # drops "Run All" queues that way); a person pastes the code much later.
            await asyncio.sleep(0.5)
        return result

    def process_message(self, msg, cell, cell_index):
        if msg.get("msg_type") in ("display_data", "update_display_data", "execute_result"):
            page = msg.get("content", {}).get("data", {}).get("text/html", "")
            for status in CARD_STATUS.findall(page):
                plain = msg.get("content", {}).get("data", {}).get("text/plain", "")
                say({"event": "card", "status": status, "cell": cell_index, "completeSignIn": "completeSignIn(" in page,
                     "plain": plain if isinstance(plain, str) else "".join(plain), "html": page})
            for match in SIGN_IN_LINK.finditer(page):
                url = html.unescape(match.group(1))
                if url not in self.seen:
                    self.seen.add(url)
                    say({"event": "sign-in", "url": url, "cell": cell_index})
        return super().process_message(msg, cell, cell_index)


def main(notebook_path, output_path):
    notebook = nbformat.read(notebook_path, as_version=4)
    client = ReportingClient(
        notebook,
        timeout=120,
        startup_timeout=120,
        kernel_name=notebook.metadata.get("kernelspec", {}).get("name", "tslab"),
        resources={"metadata": {"path": os.path.dirname(os.path.abspath(notebook_path))}},
    )
    error = None
    try:
        client.execute()
    except CellExecutionError as exc:
        error = str(exc)[-4000:]
    except Exception as exc:  # a kernel that dies or never starts: say why
        error = f"{type(exc).__name__}: {exc}"[-4000:]
    nbformat.write(notebook, output_path)
    say({"event": "done", "ok": error is None, "error": error})


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
