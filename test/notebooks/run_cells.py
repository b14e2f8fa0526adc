"""Runs cells one by one on a real Jupyter kernel (jupyter_client), as a test asks, and can
press Kernel > Interrupt (`KernelManager.interrupt_kernel()`) while a cell runs.

Usage: python3 run_cells.py KERNEL_NAME   (the kernel starts in the current directory)

Reads one JSON request per line on stdin: {"code": "...", "interrupt_on": "waiting" | null}, or
{"codes": ["...", "..."]} to send several execute requests at once (as "Run All" or a quick
Shift+Enter twice does: each is queued before the one before has finished), or {"interrupt": true}
to interrupt an idle kernel (a sign-in left waiting for a paste after its cell ended): then every
message is read, whatever cell it belongs to, until a card shows "failed".
While the cell runs, prints one JSON line per event on stdout:
  {"event": "sign-in", "url": ...}        a sign-in link appeared in a display (once per link)
  {"event": "card", "status": ...}        a sign-in card showed this status
  {"event": "interrupted"}                interrupt_kernel() was called (once the card said
                                          `interrupt_on`)
  {"event": "input", ...}                 the kernel asks for input (see answer_input)
and, when the kernel reports the cell finished (status idle):
  {"event": "executed", "stdout": ..., "stderr": ..., "plain": [...], "error": ename or null,
   "traceback": the error message's traceback lines (a kernel's own report of a failed cell),
   "status": the execute reply's status: "ok", "error", or "abort" (tslab dropped the request)}
where "plain" holds the text/plain of every display message, in order ("html" their text/html) (with "codes", one
"executed" per cell, in order). An empty line or the end of stdin shuts the kernel down.
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
LATE_SECONDS = 0.5


def say(event):
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


def messages(client):
    """The kernel's output messages and input requests as they come, for CELL_TIMEOUT_SECONDS at most."""
    deadline = time.monotonic() + CELL_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        try:
            yield client.get_stdin_msg(timeout=0.01)
        except queue.Empty:
            pass
        try:
            yield client.get_iopub_msg(timeout=0.2)
        except queue.Empty:
            continue


def answer_input(client, result, seen, content):
    """
    An input request (Deno's prompt()): the displays already sent are read first (for LATE_SECONDS),
    then the test is told ({"event": "input", "prompt": ..., "links": the sign-in links seen so far})
    and answers with one line on stdin, {"input": "..."}, which goes to the kernel.
    """
    for msg in late_messages(client):
        if msg["msg_type"] in ("display_data", "update_display_data", "execute_result"):
            record_display(result, msg["content"].get("data", {}), seen, None, None)
    say({"event": "input", "prompt": content.get("prompt", ""), "links": len(seen)})
    client.input(json.loads(sys.stdin.readline())["input"])


def new_result():
    return {"event": "executed", "stdout": "", "stderr": "", "plain": [], "html": [], "error": None, "traceback": [], "status": None}


def record_display(result, data, seen, interrupt_on, manager):
    """Records a display's text/plain and reports its link and card states; interrupts on `interrupt_on` (True if so)."""
    if "text/plain" in data:
        result["plain"].append(data["text/plain"])
    page = data.get("text/html", "")
    if page:
        result["html"].append(page)
    for match in SIGN_IN_LINK.finditer(page):
        url = html.unescape(match.group(1))
        if url not in seen:
            seen.add(url)
            say({"event": "sign-in", "url": url})
    interrupted = False
    for status in CARD_STATUS.findall(page):
        say({"event": "card", "status": status})
        if status == interrupt_on and manager is not None and not interrupted:
            interrupted = True
            manager.interrupt_kernel()
            say({"event": "interrupted"})
    return interrupted


def run_cells(manager, client, codes, interrupt_on, seen):
    """Sends every execute request at once, then reads until each cell is idle."""
    ids = [client.execute(code) for code in codes]
    results = {msg_id: new_result() for msg_id in ids}
    idle = set()
    interrupted = False
    for msg in messages(client):
        msg_id = msg["parent_header"].get("msg_id")
        if msg_id not in results:
            continue
        result, kind, content = results[msg_id], msg["msg_type"], msg["content"]
        if kind == "status" and content["execution_state"] == "idle":
            idle.add(msg_id)
            if len(idle) == len(ids):
                late_updates(client, results, seen)
                break
        elif kind == "input_request":
            answer_input(client, result, seen, content)
        elif kind == "stream":
            result[content["name"]] += content["text"]
        elif kind == "error":
            result["error"] = content["ename"]
            result["traceback"] = content.get("traceback", [])
        elif kind in ("display_data", "update_display_data", "execute_result"):
            data = content.get("data", {})
            if record_display(result, data, seen, interrupt_on, None if interrupted else manager):
                interrupted = True
    for msg_id in ids:
        if msg_id not in idle:
            results[msg_id]["error"] = "the cell did not finish in time"
    replies = {}
    while len(replies) < len(ids):
        try:
            reply = client.get_shell_msg(timeout=5)
        except queue.Empty:
            break
        # Older replies (kernel_info, cells run before) may still be queued: keep only these cells'.
        if reply["parent_header"].get("msg_id") in results:
            replies[reply["parent_header"]["msg_id"]] = reply["content"].get("status")
    for msg_id in ids:
        results[msg_id]["status"] = replies.get(msg_id)
        say(results[msg_id])


def late_updates(client, results, seen):
    """
    Displays and display updates sent as the cells ended: Deno's kernel publishes a display on its
    own path, which may overtake the cell's idle status. A front end shows a display under its cell,
    and applies an update by its display id, whenever it comes (JupyterLab does), so they count as
    the cell's: read for LATE_SECONDS more. (Only updates were read at first: a CI run lost a Deno
    cell's `await Deno.jupyter.display(...)`, seen empty after its idle status.)
    """
    for msg in late_messages(client):
        result = results.get(msg["parent_header"].get("msg_id"))
        if result is not None and msg["msg_type"] in ("display_data", "update_display_data", "execute_result"):
            record_display(result, msg["content"].get("data", {}), seen, None, None)


def displayed(msg):
    """A display message's data, or {} for any other message."""
    return msg["content"].get("data", {}) if msg["msg_type"].endswith("display_data") else {}


def interrupt_idle(manager, client):
    """
    Interrupts between cells; reports the cards shown until one says "failed", and the displays
    sent in LATE_SECONDS more (a card drawn twice would show there, and under Deno would otherwise
    land under the next cell).
    """
    manager.interrupt_kernel()
    say({"event": "interrupted"})
    result = new_result()
    for msg in messages(client):
        data = displayed(msg)
        if "text/plain" in data:
            result["plain"].append(data["text/plain"])
        for status in CARD_STATUS.findall(data.get("text/html", "")):
            say({"event": "card", "status": status})
            if status == "failed":
                result["plain"] += late_displays(client)
                say(result)
                return
    result["error"] = "no card said failed"
    say(result)


def late_displays(client):
    """The text/plain of every display message sent in the next LATE_SECONDS, whatever its cell."""
    data = (displayed(msg) for msg in late_messages(client))
    return [each["text/plain"] for each in data if "text/plain" in each]


def late_messages(client):
    """The kernel's output messages that arrive in the next LATE_SECONDS."""
    deadline = time.monotonic() + LATE_SECONDS
    while time.monotonic() < deadline:
        try:
            yield client.get_iopub_msg(timeout=max(0.01, deadline - time.monotonic()))
        except queue.Empty:
            return


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
            codes = request["codes"] if "codes" in request else [request["code"]]
            run_cells(manager, client, codes, request.get("interrupt_on"), seen)
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


if __name__ == "__main__":
    main(sys.argv[1])
