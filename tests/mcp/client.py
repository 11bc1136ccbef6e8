"""End-to-end check of `atip serve` with the official MCP Python SDK's stdio client.

    python client.py ATIP_BINARY GIT_JSON REPO_DIR

Starts `ATIP_BINARY serve --tools GIT_JSON` in REPO_DIR (an empty directory), lists the tools,
calls git commands there, and prints one JSON transcript on stdout: what was listed and what each
call returned. The Rust test (`tests/corpus/mcp.rs`) checks the transcript.
"""
import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


def text_of(result):
    return "".join(getattr(c, "text", "") for c in result.content)


async def main(atip, git_json, repo):
    params = StdioServerParameters(command=atip, args=["serve", "--tools", git_json], cwd=repo)
    transcript = {}
    async with stdio_client(params) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            transcript["server"] = init.server_info.name
            transcript["protocol"] = str(init.protocol_version)
            listed = await session.list_tools()
            transcript["tools"] = [
                {
                    "name": t.name,
                    "annotations": t.annotations.model_dump(by_alias=True, exclude_none=True)
                    if t.annotations
                    else None,
                    "required": (t.input_schema or {}).get("required", []),
                }
                for t in listed.tools
            ]
            calls = [
                ("git_init", {}),
                ("git_status", {"short": True}),
                ("git_clean", {"force": True}),
                ("git_status", {"short": "not a boolean"}),
                ("git_nonexistent", {}),
                ("git_status", {"pathspec": ["/etc/passwd"]}),
            ]
            transcript["calls"] = []
            for name, args in calls:
                result = await session.call_tool(name, args)
                transcript["calls"].append(
                    {"name": name, "is_error": bool(result.is_error), "text": text_of(result)}
                )
    print(json.dumps(transcript))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
