#!/usr/bin/env python3
"""Packages the library crates and builds the packages together, as crates.io users would get them.

    python3 .ci/packages.py CRATE...

`cargo package` (without its own verification) writes each crate's `.crate` file; they are unpacked
into one scratch workspace whose `[patch.crates-io]` points each crate's dependencies on the others
at the unpacked copies, and `cargo build --workspace` builds them once. A file a package forgot
(a build script's input, a module outside `include`) fails that build. Cargo's own verification
builds each package alone with its own feature set: the same shared dependencies (syn, serde,
tokio, ...) eleven times over, most of the five minutes this step used to take.

The scratch workspace copies this workspace's profiles (so the dependencies already built under
the target directory are reused) and its lock file (the versions tested are the versions built),
and builds into the same target directory (`CARGO_TARGET_DIR`, else `target/`).
"""

import os
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*args, **kw):
    print("+", " ".join(str(a) for a in args), flush=True)
    subprocess.run(args, check=True, **kw)


def profiles(manifest: str) -> str:
    """The workspace manifest's `[profile...]` tables, verbatim."""
    out, keep = [], False
    for line in manifest.splitlines():
        if line.startswith("["):
            keep = line.startswith("[profile")
        if keep:
            out.append(line)
    return "\n".join(out) + "\n"


def main() -> int:
    crates = sys.argv[1:]
    if not crates:
        print(__doc__, file=sys.stderr)
        return 2
    target = Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target").resolve()
    args = ["cargo", "package", "--no-verify"]
    for c in crates:
        args += ["-p", c]
    run(*args, cwd=ROOT)

    version = re.search(r'^version = "([^"]+)"', (ROOT / "Cargo.toml").read_text(), re.M).group(1)
    with tempfile.TemporaryDirectory(prefix="atip-packages-") as scratch:
        scratch = Path(scratch)
        members = []
        for c in crates:
            archive = target / "package" / f"{c}-{version}.crate"
            with tarfile.open(archive) as tar:
                tar.extractall(scratch, filter="data")
            members.append(f"{c}-{version}")
        manifest = ['[workspace]', 'resolver = "2"', "members = ["]
        manifest += [f'    "{m}",' for m in members]
        manifest += ["]", "", "[patch.crates-io]"]
        manifest += [f'{c} = {{ path = "{c}-{version}" }}' for c in crates]
        manifest += ["", profiles((ROOT / "Cargo.toml").read_text())]
        (scratch / "Cargo.toml").write_text("\n".join(manifest))
        (scratch / "Cargo.lock").write_bytes((ROOT / "Cargo.lock").read_bytes())
        env = dict(os.environ, CARGO_TARGET_DIR=str(target))
        run("cargo", "build", "--workspace", cwd=scratch, env=env)
    return 0


if __name__ == "__main__":
    sys.exit(main())
