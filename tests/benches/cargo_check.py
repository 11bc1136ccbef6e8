#!/usr/bin/env python3
"""Compile-time cost of generated code: `cargo check` (and, up to 1,000 commands, a debug
build and a release binary) of a crate that includes `atip gen` output for aws-like documents
of 10, 100, 1,000 and 10,000 commands. Prints a Markdown table with per-command figures.

    python3 tests/benches/cargo_check.py [--check-only] [--floor] [--root DIR] [--doc FILE] [SIZES...]
                                                       # default sizes: 10 100 1000 10000

`--root DIR` measures the generator and runtime of another checkout (e.g. a `git worktree` of
an older commit, built with `cargo build --release -p atip-cli` and `cargo build --release -p
atip-tests --example large_doc`), for before/after figures. `--doc FILE` measures one metadata file (e.g. gh.json)
instead of aws-like documents, and also checks the same crate without generated code, to
report what the document adds. `--check-only` skips the release builds. `--floor` also
checks, for each document, the floor a person would write by hand: one plain struct per
command with a field per parameter (its own, inherited and global options and its
arguments), deriving `serde::Deserialize` — no setters, no schemas — and reports our
`cargo check` as a ratio to it, measured in the same run.

Run from the workspace root. Each measurement is the best of three runs after a warm-up
build of the dependencies; memory is the compiler's peak resident set (max RSS of the
children). Needs about 16 GB of memory for 10,000 commands.
"""
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORK = os.path.join(ROOT, "target", "bench-cargo-check")
CRATE = os.path.join(WORK, "crate")


FLOOR = os.path.join(WORK, "floor")


def parse_args(argv):
    """(sizes, root, doc, check_only, floor) from the command line."""
    root, doc, check_only, floor, sizes = ROOT, None, False, False, []
    it = iter(argv)
    for a in it:
        if a == "--root":
            root = os.path.abspath(next(it))
        elif a == "--doc":
            doc = os.path.abspath(next(it))
        elif a == "--check-only":
            check_only = True
        elif a == "--floor":
            floor = True
        else:
            sizes.append(int(a))
    return sizes or ([0] if doc else [10, 100, 1000, 10000]), root, doc, check_only, floor


RUST_KEYWORDS = {"as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
                 "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
                 "self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
                 "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
                 "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen"}


def floor_source(doc_path):
    """The hand-written floor for a metadata file: a serde-derived struct per command."""
    with open(doc_path) as f:
        doc = json.load(f)
    out = ["use serde::Deserialize;", ""]
    count = 0

    def field_type(p):
        base = {"integer": "i64", "number": "f64", "boolean": "bool"}.get(p.get("type"), "String")
        if p.get("variadic") or p.get("type") == "array":
            base = f"Vec<{base}>"
        return base if p.get("required") else f"Option<{base}>"

    def struct(params):
        nonlocal count
        lines = ["#[derive(Debug, Deserialize)]", f"pub struct Command{count} {{"]
        seen = set()
        for p in params:
            name = re.sub(r"[^A-Za-z0-9_]", "_", p["name"]).lower()
            if name[0].isdigit():
                name = "_" + name
            if name in seen:
                continue
            seen.add(name)
            ident = f"r#{name}" if name in RUST_KEYWORDS else name
            if name != p["name"]:
                lines.append(f'    #[serde(rename = "{p["name"]}")]')
            lines.append(f"    pub {ident}: {field_type(p)},")
        lines.append("}")
        out.extend(lines)
        count += 1

    def walk(commands, inherited):
        for c in commands.values():
            if c.get("commands"):
                walk(c["commands"], c.get("options", []) + inherited)
            else:
                struct(c.get("arguments", []) + c.get("options", []) + inherited + doc.get("globalOptions", []))

    walk(doc.get("commands", {}), [])
    return "\n".join(out) + "\n"


def run(cmd, **kw):
    subprocess.run(cmd, check=True, cwd=kw.pop("cwd", ROOT), **kw)


def timed(cmd, env=None, cwd=CRATE):
    """Wall seconds and peak RSS (bytes) of one run of `cmd` in `cwd` (children only)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.monotonic()
    subprocess.run(cmd, check=True, cwd=cwd, env=env, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # ru_maxrss is the largest child so far, in KiB: only a new maximum is visible.
    return wall, max(after, before) * 1024


def best_of(n, cmd, touch, cwd=CRATE):
    best, rss = None, 0
    for _ in range(n):
        os.utime(touch)
        wall, peak = timed(cmd, env=dict(os.environ, CARGO_INCREMENTAL="0"), cwd=cwd)
        best = wall if best is None else min(best, wall)
        rss = max(rss, peak)
    return best, rss


BARE_MAIN = (
    "fn main() {\n"
    "    let name = std::env::args().nth(1).unwrap_or_default();\n"
    "    let call = atip_runtime::ToolCall::from_json_text(None, name, \"{}\");\n"
    "    println!(\"{call:?}\");\n"
    "}\n"
)


def bare_check(gen, main_rs, lib):
    """`cargo check` of the same crate with no generated code (an empty module, a binary that
    only parses the call), best of 3: subtracted, it gives what the document adds. The
    generated source and the binary are put back afterwards."""
    saved = {}
    for path in (gen, main_rs):
        with open(path) as f:
            saved[path] = f.read()
    try:
        with open(gen, "w") as f:
            f.write("")
        with open(main_rs, "w") as f:
            f.write(BARE_MAIN)
        bare, _ = best_of(3, ["cargo", "check", "-q", "--offline"], lib)
    finally:
        for path, text in saved.items():
            with open(path, "w") as f:
                f.write(text)
    return bare


def main():
    sizes, root, single_doc, check_only, floor = parse_args(sys.argv[1:])
    shutil.rmtree(CRATE, ignore_errors=True)
    os.makedirs(os.path.join(CRATE, "src"), exist_ok=True)
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(root, "target"))
    if root == ROOT:
        # Two builds: naming an example leaves the packages' binaries out.
        run(["cargo", "build", "--release", "-q", "-p", "atip-cli"])
        run(["cargo", "build", "--release", "-q", "-p", "atip-tests", "--example", "large_doc"])
    atip = os.path.join(target, "release", "atip")
    large_doc = os.path.join(target, "release", "examples", "large_doc")
    runtime = os.path.join(root, "crates", "atip-runtime")
    with open(os.path.join(CRATE, "Cargo.toml"), "w") as f:
        f.write(
            '[package]\nname = "gencheck"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n'
            f'[dependencies]\natip-runtime = {{ path = "{runtime}" }}\n\n'
            '[profile.dev]\ndebug = false\n\n[workspace]\n'
        )
    shutil.copy(os.path.join(root, "Cargo.lock"), os.path.join(CRATE, "Cargo.lock"))
    lib = os.path.join(CRATE, "src", "lib.rs")
    main_rs = os.path.join(CRATE, "src", "main.rs")
    gen = os.path.join(CRATE, "src", "gen.rs")
    with open(lib, "w") as f:
        f.write("//! Generated code under measurement.\n#![allow(missing_docs)]\npub mod tool {\n    include!(\"gen.rs\");\n}\n")
    # The binary dispatches a call by name, so every command's code is linked in.
    with open(main_rs, "w") as f:
        f.write(
            "fn main() {\n"
            "    let name = std::env::args().nth(1).unwrap_or_default();\n"
            "    let call = atip_runtime::ToolCall::from_json_text(None, name, \"{}\");\n"
            "    match gencheck::tool::Call::from_tool_call(&call) {\n"
            "        Ok(c) => println!(\"{:?}\", c.argv()),\n"
            "        Err(e) => println!(\"{e}\"),\n"
            "    }\n"
            "}\n"
        )
    if floor:
        shutil.rmtree(FLOOR, ignore_errors=True)
        os.makedirs(os.path.join(FLOOR, "src"), exist_ok=True)
        with open(os.path.join(FLOOR, "Cargo.toml"), "w") as f:
            f.write(
                '[package]\nname = "floorcheck"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n'
                '[dependencies]\nserde = { version = "1", features = ["derive"] }\nserde_json = "1"\n\n'
                '[profile.dev]\ndebug = false\n\n[workspace]\n'
            )
        shutil.copy(os.path.join(root, "Cargo.lock"), os.path.join(FLOOR, "Cargo.lock"))
        floor_lib = os.path.join(FLOOR, "src", "lib.rs")
    rows = []
    for i, n in enumerate(sizes):
        if single_doc:
            doc = single_doc
        else:
            doc = os.path.join(WORK, f"aws{n}.json")
            run([large_doc, str(n), doc])
        with open(gen, "w") as out:
            subprocess.run([atip, "gen", doc, "--max-commands", "100000"], check=True, stdout=out,
                           stderr=subprocess.DEVNULL)
        src = os.path.getsize(gen)
        if single_doc:
            with open(gen) as f:
                text = f.read()
            n = text.count("impl Command for ") + text.count("impl ::atip_runtime::Command for ")
        if i == 0:
            # Warm up: dependencies built once for check (and the builds measured below).
            warm = [["cargo", "check", "-q", "--offline"]]
            if not check_only:
                warm += [["cargo", "build", "-q", "--offline"], ["cargo", "build", "-q", "--offline", "--release"]]
            for cmd in warm:
                run(cmd, cwd=CRATE)
        check, check_rss = best_of(3 if n < 10000 else 1, ["cargo", "check", "-q", "--offline"], lib)
        row = {"n": n, "src": src, "check": check, "check_rss": check_rss}
        if n <= 1000 and not check_only:
            build, build_rss = best_of(1, ["cargo", "build", "-q", "--offline", "--release"], lib)
            binary = os.path.getsize(os.path.join(CRATE, "target", "release", "gencheck"))
            row.update(build=build, build_rss=build_rss, binary=binary)
        if floor:
            with open(floor_lib, "w") as f:
                f.write("#![allow(dead_code)]\n" + floor_source(doc))
            if i == 0:
                run(["cargo", "check", "-q", "--offline"], cwd=FLOOR)
            row["floor"], _ = best_of(3 if n < 10000 else 1, ["cargo", "check", "-q", "--offline"], floor_lib,
                                      cwd=FLOOR)
        if single_doc:
            row["bare"] = bare_check(gen, main_rs, lib)
        rows.append(row)
        print(row, flush=True)

    print("\n| Commands | Generated source | `cargo check` | Per command | Peak RSS | Release build | Release binary |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        build = f"{r['build']:.1f} s / {r['build_rss'] / 1e9:.2f} GB" if "build" in r else "—"
        binary = f"{r['binary'] / 1e6:.1f} MB" if "binary" in r else "—"
        print(
            f"| {r['n']} | {r['src'] / 1e6:.1f} MB | {r['check']:.2f} s | {r['check'] / r['n'] * 1e3:.1f} ms "
            f"| {r['check_rss'] / 1e9:.2f} GB | {build} | {binary} |"
        )
    if floor:
        print("\n| Commands | Ours: `cargo check` | Hand-written serde-derive floor | Ratio |")
        print("|---|---|---|---|")
        for r in rows:
            print(f"| {r['n']} | {r['check']:.2f} s | {r['floor']:.2f} s | {r['check'] / r['floor']:.2f}× |")
    for r in rows:
        if "bare" in r:
            print(f"\nWhat the document adds to a cold `cargo check`: {r['check']:.2f} s − {r['bare']:.2f} s "
                  f"(the same crate without generated code) = {r['check'] - r['bare']:.2f} s")
    with_binary = [r for r in rows if "binary" in r]
    if len(with_binary) >= 2:
        a, b = with_binary[-2], with_binary[-1]
        print(f"\nRelease binary per command: {(b['binary'] - a['binary']) / (b['n'] - a['n']) / 1e3:.1f} KB "
              f"({a['n']} → {b['n']} commands)")
    if len(rows) >= 2:
        a, b = rows[-2], rows[-1]
        print(f"`cargo check` per command: {(b['check'] - a['check']) / (b['n'] - a['n']) * 1e3:.1f} ms "
              f"({a['n']} → {b['n']} commands)")


if __name__ == "__main__":
    main()
