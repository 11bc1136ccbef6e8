#!/usr/bin/env python3
"""Runs the workspace's ignored tests, as `cargo test --workspace -- --ignored` would, with the
two binaries that take nearly all of that time side by side: the compile checks (`codegen`,
which build scratch crates in a target directory of their own) and the corpus conformance
(`corpus`, which installs and starts real servers and waits on them). Neither keeps both cores
busy all the time, so the step takes about as long as the longer of the two.

The test executables come from cargo (`--no-run --message-format=json`, the same packages and
features as the README's test command, so nothing is rebuilt). Each runs as cargo runs it: in
its package's directory, with cargo's variables for it, with `--ignored`. The other executables
run one after another meanwhile, then the ignored doc tests through cargo.

Exit status: non-zero when a test fails; each side-by-side binary's output is printed whole
when it ends.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

SIDE_BY_SIDE = {"codegen", "corpus"}


def executables():
    """Every test executable of the workspace: (target name, path, package manifest, package
    name)."""
    out = subprocess.run(
        ["cargo", "test", "--workspace", "--no-run", "--message-format=json"],
        check=True,
        stdout=subprocess.PIPE,
        text=True,
    ).stdout
    found = []
    for line in out.splitlines():
        message = json.loads(line)
        if message.get("reason") == "compiler-artifact" and message.get("executable"):
            if message["profile"]["test"]:
                found.append(
                    (
                        message["target"]["name"],
                        message["executable"],
                        message["manifest_path"],
                        package_name(message["package_id"]),
                    )
                )
    return found


def package_name(package_id):
    """The name in a package id: `path+file:///w/tests#atip-tests@0.1.0`, or the directory's
    name when the id gives only a version (`path+file:///w/crates/atip-core#0.1.0`)."""
    location, _, fragment = package_id.partition("#")
    name, at, _ = fragment.partition("@")
    return name if at else os.path.basename(location)


def package_env(manifest, package):
    """The variables cargo sets for a test it runs (those a test may read)."""
    directory = os.path.dirname(manifest)
    env = dict(os.environ)
    env["CARGO"] = env.get("CARGO") or shutil.which("cargo") or "cargo"
    env["CARGO_MANIFEST_DIR"] = directory
    env["CARGO_MANIFEST_PATH"] = manifest
    env["CARGO_PKG_NAME"] = package
    return directory, env


def main():
    tests = executables()
    missing = SIDE_BY_SIDE - {name for name, *_ in tests}
    if missing:
        sys.exit(f"ignored.py: cargo built no test executable named {sorted(missing)}")
    started = []
    for name, executable, manifest, package in tests:
        if name in SIDE_BY_SIDE:
            directory, env = package_env(manifest, package)
            log = tempfile.TemporaryFile(mode="w+")
            process = subprocess.Popen(
                [executable, "--ignored"], cwd=directory, env=env, stdout=log, stderr=subprocess.STDOUT
            )
            started.append((name, process, log))
    failed = []
    for name, executable, manifest, package in tests:
        if name not in SIDE_BY_SIDE:
            directory, env = package_env(manifest, package)
            print(f"===== {os.path.basename(executable)} --ignored", flush=True)
            if subprocess.run([executable, "--ignored"], cwd=directory, env=env).returncode:
                failed.append(name)
    if subprocess.run(["cargo", "test", "--workspace", "--doc", "--", "--ignored"]).returncode:
        failed.append("doc tests")
    for name, process, log in started:
        status = process.wait()
        log.seek(0)
        print(f"===== {name} --ignored (side by side): exit {status}", flush=True)
        sys.stdout.write(log.read())
        sys.stdout.flush()
        if status:
            failed.append(name)
    if failed:
        sys.exit(f"ignored tests failed in: {', '.join(failed)}")


if __name__ == "__main__":
    main()
