"""run_notebook.py for Deno's Jupyter kernel: same usage, same events.

Deno's kernel sometimes publishes a cell's last output just after the status "idle" that tells
nbclient the cell is done; nbclient then drops it (JupyterLab, which routes outputs by their
parent message, still shows it). So after each idle, outputs of the same cell that arrive
within LATE_OUTPUT_SECONDS are still taken.
"""
import asyncio
import os
import queue
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_notebook  # noqa: E402
from nbclient.exceptions import CellExecutionComplete  # noqa: E402

LATE_OUTPUT_SECONDS = 1.0


class LateOutputClient(run_notebook.ReportingClient):
    async def _async_poll_output_msg(self, parent_msg_id, cell, cell_index):
        await super()._async_poll_output_msg(parent_msg_id, cell, cell_index)
        loop = asyncio.get_running_loop()
        end = loop.time() + LATE_OUTPUT_SECONDS
        while (left := end - loop.time()) > 0:
            try:
                msg = await self.kc.iopub_channel.get_msg(timeout=left)
            except queue.Empty:
                return
            if msg["parent_header"].get("msg_id") == parent_msg_id:
                try:
                    self.process_message(msg, cell, cell_index)
                except CellExecutionComplete:
                    pass


if __name__ == "__main__":
    run_notebook.ReportingClient = LateOutputClient
    run_notebook.main(sys.argv[1], sys.argv[2])
