#!/usr/bin/env bash
# Installs the real MCP servers the wrap tests drive (tests/mcp/wrap.py) into DIR, once:
# mcp-server-time, mcp-server-git and mcp-server-fetch from PyPI (a virtual environment,
# DIR/bin) and @modelcontextprotocol/server-filesystem from npm (DIR/node_modules/.bin).
# Versions pinned.
# Needs Python 3 and npm, and the package registries.
#
#   bash tests/mcp/install-servers.sh DIR
set -euo pipefail
dir="$1"
if [ -x "$dir/bin/mcp-server-fetch" ] && [ -x "$dir/node_modules/.bin/mcp-server-filesystem" ]; then
    exit 0
fi
mkdir -p "$dir"
python3 -m venv "$dir"
"$dir/bin/python" -m pip install -q --disable-pip-version-check \
    mcp-server-time==2026.10.19 mcp-server-git==2026.10.19 mcp-server-fetch==2026.10.19
if ! command -v npm >/dev/null; then
    if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq npm; else sudo apt-get update -qq && sudo apt-get install -y -qq npm; fi
fi
npm install --silent --no-audit --no-fund --prefix "$dir" @modelcontextprotocol/server-filesystem@2026.8.31
