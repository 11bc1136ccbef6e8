"""`atip serve` against the official MCP Python SDK: the protocol features beyond list and call.

    python features.py ATIP_BINARY PROBE_JSON WORK_DIR BIN_DIR

PROBE_JSON describes `atip-probe` (a script in BIN_DIR, put first on the server's PATH) with
commands `read` (read-only), `write` (writes files) and `wipe` (destructive). Prints one JSON
transcript on stdout for the Rust test (`tests/corpus/mcp.rs`) to check: the instructions,
elicitation answered yes / no / unticked, a client without elicitation, progress notifications,
the timing of concurrent calls, the processes left after a cancelled call, and the tool list after
the metadata file changed.
"""
import asyncio
import json
import os
import sys

from mcp import ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client


def text_of(result):
    return "".join(getattr(c, "text", "") for c in result.content)


def processes_with(needle):
    """PIDs whose command line contains `needle`."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if needle in cmdline:
            found.append(int(pid))
    return found


def times(text):
    """(start, end) in seconds from the probe's `start <ns>` / `end <ns>` lines."""
    marks = dict(line.split() for line in text.splitlines() if line.startswith(("start", "end")))
    return int(marks["start"]) / 1e9, int(marks["end"]) / 1e9


async def main(atip, probe_json, work, bin_dir):
    env = dict(os.environ)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    params = StdioServerParameters(
        command=atip, args=["serve", "--tools", probe_json], cwd=work, env=env
    )
    transcript = {}
    answers = [
        types.ElicitResult(action="accept", content={"confirm": True}),
        types.ElicitResult(action="decline"),
        types.ElicitResult(action="accept", content={"confirm": False}),
        types.ElicitResult(action="accept", content={"confirm": True, "forSession": True}),
    ]
    asked = []

    fields = []

    async def elicit(context, request):
        asked.append(request.message)
        fields.append(sorted(request.requested_schema.get("properties", {})))
        return answers.pop(0)

    changed = asyncio.Event()

    async def on_message(message):
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    async with stdio_client(params) as streams:
        async with ClientSession(
            streams[0], streams[1], elicitation_callback=elicit, message_handler=on_message
        ) as session:
            init = await session.initialize()
            transcript["instructions"] = init.instructions
            transcript["list_changed"] = bool(
                init.capabilities.tools and init.capabilities.tools.list_changed
            )
            listed = await session.list_tools()
            transcript["tools"] = sorted(t.name for t in listed.tools)

            transcript["wipe"] = []
            # yes, decline, unticked, yes for the session, then no question at all.
            for _ in range(5):
                r = await session.call_tool("atip-probe_wipe", {})
                transcript["wipe"].append({"is_error": bool(r.is_error), "text": text_of(r)})
            transcript["asked"] = asked
            transcript["fields"] = fields

            progress = []

            async def on_progress(value, total, message):
                progress.append({"progress": value, "message": message})

            r = await session.call_tool(
                "atip-probe_read", {"seconds": "2.6"}, progress_callback=on_progress
            )
            transcript["progress"] = progress
            transcript["progress_call"] = {"is_error": bool(r.is_error), "text": text_of(r)}

            async def timed(name):
                r = await session.call_tool(name, {"seconds": "1"})
                return times(text_of(r))

            transcript["writes"] = await asyncio.gather(
                timed("atip-probe_write"), timed("atip-probe_write")
            )
            transcript["reads"] = await asyncio.gather(
                timed("atip-probe_read"), timed("atip-probe_read")
            )

            # Abandoned after 2 s: the SDK sends notifications/cancelled.
            call = asyncio.create_task(
                session.call_tool("atip-probe_read", {"seconds": "41.7"}, read_timeout_seconds=2)
            )
            await asyncio.sleep(1)
            transcript["running_before_cancel"] = processes_with("sleep 41.7")
            try:
                await call
                transcript["cancel_raised"] = False
            except Exception as e:  # the SDK raises a timeout error
                transcript["cancel_raised"] = type(e).__name__
            await asyncio.sleep(1.5)
            transcript["left_after_cancel"] = processes_with("sleep 41.7")

            with open(probe_json) as f:
                doc = json.load(f)
            doc["commands"]["extra"] = dict(doc["commands"]["read"], description="Added later")
            with open(probe_json, "w") as f:
                json.dump(doc, f)
            try:
                await asyncio.wait_for(changed.wait(), 15)
                transcript["notified"] = True
            except asyncio.TimeoutError:
                transcript["notified"] = False
            listed = await session.list_tools()
            transcript["tools_after"] = sorted(t.name for t in listed.tools)

    # A client that cannot be asked.
    async with stdio_client(params) as streams:
        async with ClientSession(streams[0], streams[1]) as session:
            await session.initialize()
            r = await session.call_tool("atip-probe_wipe", {})
            transcript["unasked"] = {"is_error": bool(r.is_error), "text": text_of(r)}

    print(json.dumps(transcript))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
