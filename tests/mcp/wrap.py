"""Real MCP servers through `atip mcp wrap`, driven by the official MCP Python SDK's client.

    python wrap.py ATIP_BINARY SERVERS_DIR WORK_DIR HOME_DIR OUTSIDE_DIR

SERVERS_DIR holds the servers as `.ci/run` installs them: `bin/mcp-server-time` and
`bin/mcp-server-git` (PyPI, in a virtual environment there) and
`node_modules/.bin/mcp-server-filesystem` (npm). WORK_DIR is the wrapper's working directory (a
git repository with a file holding a token), HOME_DIR the servers' home (with `.ssh/id_ed25519`
holding `SSH-KEY`), OUTSIDE_DIR a directory outside both. Prints one JSON transcript for the
Rust test (`tests/corpus/mcp.rs`) to check; asserts nothing itself.
"""
import asyncio
import json
import os
import sys

from mcp import ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client


def text_of(result):
    return "".join(getattr(c, "text", "") for c in result.content)


async def session_with(atip, command, work, home, answers, asked, wrap_args=()):
    env = dict(os.environ)
    env["HOME"] = home
    params = StdioServerParameters(
        command=atip,
        args=["mcp", "wrap", *wrap_args, "--", *command],
        cwd=work,
        env=env,
    )

    async def elicit(context, request):
        asked.append(request.message)
        return answers.pop(0) if answers else types.ElicitResult(action="decline")

    return params, elicit


async def run(atip, command, work, home, calls, answers=None, wrap_args=(), elicits=True):
    """Lists the tools and makes `calls` [(name, arguments)]; returns tools and results."""
    asked = []
    params, elicit = await session_with(
        atip, command, work, home, list(answers or []), asked, wrap_args
    )
    out = {"tools": {}, "calls": [], "asked": asked}
    async with stdio_client(params) as streams:
        kwargs = {"elicitation_callback": elicit} if elicits else {}
        async with ClientSession(streams[0], streams[1], **kwargs) as session:
            await session.initialize()
            tools = await session.list_tools()
            for t in tools.tools:
                out["tools"][t.name] = t.annotations.model_dump(exclude_none=True) if t.annotations else None
            for name, arguments in calls:
                r = await session.call_tool(name, arguments)
                out["calls"].append({"name": name, "is_error": getattr(r, "is_error", getattr(r, "isError", None)), "text": text_of(r)})
    return out


async def main(atip, servers, work, home, outside):
    py = os.path.join(servers, "bin")
    fs = os.path.join(servers, "node_modules", ".bin", "mcp-server-filesystem")
    transcript = {}
    yes = types.ElicitResult(action="accept", content={"confirm": True})
    no = types.ElicitResult(action="decline")

    # The time server: its tools say they are read-only and offline, so they run unasked.
    transcript["time"] = await run(
        atip,
        [os.path.join(py, "mcp-server-time"), "--local-timezone", "UTC"],
        work,
        home,
        [("get_current_time", {"timezone": "UTC"})],
    )
    # The filesystem server allowed everything it can see ("/"): the sandbox still hides
    # ~/.ssh and keeps its writes in the working directory; a token it reads is redacted; its
    # writes (destructive, it says) ask: yes to the two writes, no to the third.
    transcript["filesystem"] = await run(
        atip,
        [fs, "/"],
        work,
        home,
        [
            ("read_text_file", {"path": os.path.join(home, ".ssh", "id_ed25519")}),
            ("read_text_file", {"path": os.path.join(work, "config.txt")}),
            ("write_file", {"path": os.path.join(outside, "planted.txt"), "content": "x"}),
            ("write_file", {"path": os.path.join(work, "note.txt"), "content": "kept"}),
            ("write_file", {"path": os.path.join(work, "declined.txt"), "content": "no"}),
        ],
        answers=[yes, yes, no],
    )
    # A client without elicitation: the write is refused, with the reason, and never runs.
    transcript["filesystem_no_elicitation"] = await run(
        atip,
        [fs, work],
        work,
        home,
        [("write_file", {"path": os.path.join(work, "unasked.txt"), "content": "x"})],
        elicits=False,
    )
    # The git server on the working directory's repository: a read-only tool runs unasked.
    transcript["git"] = await run(
        atip,
        [os.path.join(py, "mcp-server-git"), "--repository", work],
        work,
        home,
        [("git_status", {"repo_path": work})],
    )
    print(json.dumps(transcript, indent=2))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:6]))
