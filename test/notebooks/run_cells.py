"""Runs cells one by one on a real Jupyter kernel (jupyter_client), as a test asks, and can
press Kernel > Interrupt (`KernelManager.interrupt_kernel()`) while a cell runs.

Usage: python3 run_cells.py KERNEL_NAME   (the kernel starts in the current directory)

Reads one JSON request per line on stdin: {"code": "...", "interrupt_on": "waiting" | null}, or
{"interrupt": true} to interrupt an idle kernel (a sign-in left waiting for a paste after its
cell ended): then every message is read, whatever cell it belongs to, until a card shows "failed".
While the cell runs, prints one JSON line per event on stdout:
  {"event": "sign-in", "url": ...}        a sign-in link appeared in a display (once per link)
  {"event": "card", "status": ...}        a sign-in card showed this status
  {"event": "interrupted"}                interrupt_kernel() was called (once the card said
                                          `interrupt_on`)
and, when the kernel reports the cell finished (status idle):
  {"event": "executed", "stdout": ..., "stderr": ..., "plain": [...], "error": ename or null}
where "plain" holds the text/plain of every display message, in order. An empty line or the end
of stdin shuts the kernel down.
"""
import html
import json
import queue
import re
import sys
import time

from jupyter_client.manager import KernelManager

SIGN_IN_LINK = re.compile(r'<a href="([^"]+)"[^>]*>Sign in with Google</a>')
CARD_STATUS = re.compile(r'data-cred-auth-status="([^"]+)"')
CELL_TIMEOUT_SECONDS = 120


def say(event):
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


def messages(client):
    """The kernel's output messages as they come, for CELL_TIMEOUT_SECONDS at most."""
    deadline = time.monotonic() + CELL_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        try:
            yield client.get_iopub_msg(timeout=1)
        except queue.Empty:
            continue


def run_cell(manager, client, code, interrupt_on, seen):
    msg_id = client.execute(code)
    result = {"event": "executed", "stdout": "", "stderr": "", "plain": [], "error": None}
    interrupted = False
    for msg in messages(client):
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "status" and content["execution_state"] == "idle":
            say(result)
            return
        if kind == "stream":
            result[content["name"]] += content["text"]
        elif kind == "error":
            result["error"] = content["ename"]
        elif kind in ("display_data", "update_display_data", "execute_result"):
            data = content.get("data", {})
            if "text/plain" in data:
                result["plain"].append(data["text/plain"])
            page = data.get("text/html", "")
            for match in SIGN_IN_LINK.finditer(page):
                url = html.unescape(match.group(1))
                if url not in seen:
                    seen.add(url)
                    say({"event": "sign-in", "url": url})
            for status in CARD_STATUS.findall(page):
                say({"event": "card", "status": status})
                if status == interrupt_on and not interrupted:
                    interrupted = True
                    manager.interrupt_kernel()
                    say({"event": "interrupted"})
    result["error"] = "the cell did not finish in time"
    say(result)


def interrupt_idle(manager, client):
    """Interrupts between cells; reports the cards shown until one says "failed"."""
    manager.interrupt_kernel()
    say({"event": "interrupted"})
    result = {"event": "executed", "stdout": "", "stderr": "", "plain": [], "error": None}
    for msg in messages(client):
        data = msg["content"].get("data", {}) if msg["msg_type"].endswith("display_data") else {}
        if "text/plain" in data:
            result["plain"].append(data["text/plain"])
        for status in CARD_STATUS.findall(data.get("text/html", "")):
            say({"event": "card", "status": status})
            if status == "failed":
                say(result)
                return
    result["error"] = "no card said failed"
    say(result)


def main(kernel_name):
    manager = KernelManager(kernel_name=kernel_name)
    manager.start_kernel()
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=120)
        seen = set()
        for line in sys.stdin:
            if not line.strip():
                break
            request = json.loads(line)
            if request.get("interrupt"):
                interrupt_idle(manager, client)
                continue
            run_cell(manager, client, request["code"], request.get("interrupt_on"), seen)
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


if __name__ == "__main__":
    main(sys.argv[1])
