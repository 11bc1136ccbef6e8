"""Real MCP servers through `atip mcp wrap`, driven by the official MCP Python SDK's client.

    python wrap.py ATIP_BINARY SERVERS_DIR WORK_DIR HOME_DIR OUTSIDE_DIR DATA_DIR

SERVERS_DIR holds the servers as `tests/mcp/install-servers.sh` installs them:
`bin/mcp-server-time`, `bin/mcp-server-git` and `bin/mcp-server-fetch` (PyPI, in a virtual
environment there) and `node_modules/.bin/mcp-server-filesystem` (npm). WORK_DIR is the
wrapper's working directory (a git repository with a file holding a token), HOME_DIR the
servers' home (with `.ssh/id_ed25519` holding `SSH-KEY`), OUTSIDE_DIR a directory outside both,
DATA_DIR the root a described server may write (with `notes.txt` holding a token). Two HTTP
servers on loopback serve the fetch server: one its description lists, one it does not. Prints
one JSON transcript for the Rust test (`tests/corpus/mcp.rs`) to check; asserts nothing itself.
"""
import asyncio
import http.server
import json
import os
import sys
import threading

from mcp import ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client


def text_of(result):
    return "".join(getattr(c, "text", "") for c in result.content)


async def session_with(atip, command, work, home, answers, asked, wrap_args=()):
    env = dict(os.environ)
    env["HOME"] = home
    params = StdioServerParameters(
        command=atip,
        args=["mcp", "wrap", *wrap_args, *(["--", *command] if command else [])],
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


def loopback_site(body):
    """An HTTP server on 127.0.0.1 answering every GET with `body`; returns its port."""

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            data = body.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_address[1]


def described(directory, name, spec):
    """Writes a server description into `directory`; returns its path."""
    path = os.path.join(directory, f"{name}.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    return path


async def main(atip, servers, work, home, outside, data):
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
    # The filesystem server described (SERVER.json): it may read its own installation and
    # DATA_DIR and write only DATA_DIR, although it is told it may use WORK_DIR too; the
    # description says read_text_file reads and write_file writes without destroying, so both
    # run unasked.
    spec = described(outside, "files", {
        "name": "files",
        "command": [fs, data, work],
        "filesystem": {"read": [servers], "write": [data]},
        "tools": {
            "read_text_file": {"filesystem": {"read": True, "write": False, "delete": False},
                               "network": False, "destructive": False},
            "write_file": {"filesystem": {"write": True}, "network": False,
                           "destructive": False},
        },
    })
    transcript["described"] = await run(
        atip,
        [],
        work,
        home,
        [
            ("read_text_file", {"path": os.path.join(data, "notes.txt")}),
            ("read_text_file", {"path": os.path.join(work, "config.txt")}),
            ("write_file", {"path": os.path.join(data, "written.txt"), "content": "in"}),
            ("write_file", {"path": os.path.join(work, "planted.txt"), "content": "x"}),
            ("write_file", {"path": os.path.join(outside, "planted.txt"), "content": "x"}),
        ],
        wrap_args=[spec],
    )
    # The time server described: it reads nothing but its installation, the Python it runs
    # on (a virtual environment's interpreter may live outside the system directories) and
    # the system.
    python = os.path.dirname(os.path.dirname(os.path.realpath(os.path.join(py, "python3"))))
    spec = described(outside, "time", {
        "command": [os.path.join(py, "mcp-server-time"), "--local-timezone", "UTC"],
        "filesystem": {"read": [servers, python]},
    })
    transcript["time_described"] = await run(
        atip, [], work, home, [("get_current_time", {"timezone": "UTC"})], wrap_args=[spec]
    )
    # The fetch server may reach one loopback site, which serves a token; not the other.
    listed = loopback_site("listed page, key ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5" + "\n")
    other = loopback_site("the other site\n")
    spec = described(outside, "fetch", {
        "name": "fetch",
        "command": [os.path.join(py, "mcp-server-fetch"), "--ignore-robots-txt",
                    "--allow-private-ips"],
        "hosts": [f"127.0.0.1:{listed}"],
        "tools": {"fetch": {"network": True, "destructive": False,
                            "filesystem": {"read": False, "write": False, "delete": False}}},
    })
    transcript["fetch"] = await run(
        atip,
        [],
        work,
        home,
        [
            ("fetch", {"url": f"http://127.0.0.1:{listed}/page", "raw": True}),
            ("fetch", {"url": f"http://127.0.0.1:{other}/page", "raw": True}),
        ],
        wrap_args=[spec],
    )
    print(json.dumps(transcript, indent=2))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:7]))
