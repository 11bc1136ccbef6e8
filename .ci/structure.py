#!/usr/bin/env python3
"""Structure check for the workspace's Rust sources (Python 3 standard library only).

Fails (exit 1) on
  * a Rust source file under crates/*/src, examples/src or tests/src with more than 800 lines;
  * an import circle between the files (modules) of one crate.

An import is a path into the same crate: `use crate::a::B`, `use super::x`, `use self::y::Z`,
`use child::W` where `child` is a module declared in the same file, and `crate::a::f(…)` or
`super::g` written anywhere in code (comments and string literals are skipped). The path is
resolved to the file of the deepest module it names; a name that the module re-exports
(`pub use …::Name`) is followed to the module that defines it. A module's use of its own
descendants (`mod child;`, `pub use child::…`, `child::f()` in its code) is not an import:
a parent holds its rooms, and a child may use what its parent defines. So circles are the
ones between rooms that do not hold each other — siblings and cousins — the loops that make a
house hard to read; a file never imports itself (`use super::*` in its `mod tests`).

Usage:
  python3 .ci/structure.py [ROOT]   check the workspace at ROOT (default: this script's ..)
  python3 .ci/structure.py --self-test
                                    check the checker on tiny fixture trees
"""

import os
import re
import sys
import tempfile

MAX_LINES = 800

# --------------------------------------------------------------------------------------------
# Lexing: identifiers and punctuation with line numbers; comments, strings and chars dropped.

_IDENT = re.compile(r"(?:r#)?[A-Za-z_][A-Za-z0-9_]*")


def lex(text):
    """Yields (kind, value, line) with kind 'id' or 'p' (punctuation; '::' is one token)."""
    i, n, line = 0, len(text), 1
    out = []
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c in " \t\r":
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    line += text[i] == "\n"
                    i += 1
        elif re.match(r'(?:b|c)?r#*"', text[i:i + 260]):
            m = re.match(r'(?:b|c)?r(#*)"', text[i:])
            close = '"' + m.group(1)
            j = text.find(close, i + m.end())
            j = n if j < 0 else j + len(close)
            line += text.count("\n", i, j)
            i = j
        elif c == '"' or (c in "bc" and text.startswith('"', i + 1)):
            i += 1 if c == '"' else 2
            while i < n and text[i] != '"':
                if text[i] == "\\":
                    i += 1
                line += i < n and text[i] == "\n"
                i += 1
            i += 1
        elif c == "'" or (c == "b" and text.startswith("'", i + 1)):
            # A char literal ('a', '\n', '\u{..}', b'x') or a lifetime ('a).
            k = i + (1 if c == "'" else 2)
            m = re.match(r"(?:\\(?:u\{[0-9a-fA-F]*\}|x..|.)|[^\\\n])'", text[k:k + 12])
            if m:
                i = k + m.end()
            else:
                m = _IDENT.match(text, k)
                i = m.end() if m else k
        elif _IDENT.match(text, i) and not c.isdigit():
            m = _IDENT.match(text, i)
            out.append(("id", m.group(0), line))
            i = m.end()
        elif c.isdigit():
            m = re.match(r"[0-9][0-9A-Za-z_]*(?:\.[0-9][0-9A-Za-z_]*)?", text[i:])
            i += m.end()
        elif text.startswith("::", i):
            out.append(("p", "::", line))
            i += 2
        else:
            out.append(("p", c, line))
            i += 1
    return out


# --------------------------------------------------------------------------------------------
# Parsing one file: module declarations, use trees, and crate/super/self paths elsewhere.


class FileInfo:
    def __init__(self, path, modpath):
        self.path = path
        self.modpath = modpath  # tuple of module names from the crate root
        self.mods = []  # (inner modpath, name, path attr or None, inline: bool)
        self.uses = []  # (inner modpath, segments, is_pub, line, glob, alias)
        self.paths = []  # (inner modpath, segments, line)
        self.defs = {}  # inner modpath -> set of item names defined there


ITEM_KW = {"struct", "enum", "union", "trait", "type", "fn", "const", "static", "mod"}


def _use_tree(toks, i, prefix, acc):
    """Parses a use tree at toks[i]; appends (segments, glob, alias, line). Returns next index."""
    segs = list(prefix)
    while i < len(toks):
        kind, val, line = toks[i]
        if kind == "id" and val != "as":
            segs.append(val)
            i += 1
        elif val == "::":
            i += 1
        elif val == "*":
            acc.append((segs, True, None, line))
            return i + 1
        elif val == "{":
            i += 1
            while i < len(toks) and toks[i][1] != "}":
                if toks[i][1] == ",":
                    i += 1
                    continue
                i = _use_tree(toks, i, segs, acc)
            return i + 1
        elif kind == "id" and val == "as":
            alias = toks[i + 1][1] if i + 1 < len(toks) else None
            acc.append((segs, False, alias, line))
            return i + 2
        else:  # ',' '}' ';'
            if segs != list(prefix):
                acc.append((segs, False, None, line))
            return i
    return i


def parse(path, modpath):
    with open(path, encoding="utf-8") as f:
        toks = lex(f.read())
    info = FileInfo(path, modpath)
    stack = []  # (name, brace depth at open)
    depth = 0
    pending_path_attr = None
    i = 0

    def inner():
        return tuple(name for name, _ in stack)

    while i < len(toks):
        kind, val, line = toks[i]
        prev = toks[i - 1][1] if i else ""
        if val == "#" and i + 1 < len(toks) and toks[i + 1][1] == "[":
            # Attribute: remember #[path = "…"] (the string was dropped by the lexer, so
            # re-read it from the source line).
            j, nest = i + 1, 0
            while j < len(toks):
                if toks[j][1] == "[":
                    nest += 1
                elif toks[j][1] == "]":
                    nest -= 1
                    if nest == 0:
                        break
                j += 1
            if i + 2 < len(toks) and toks[i + 2][1] == "path":
                with open(path, encoding="utf-8") as f:
                    src_line = f.read().split("\n")[line - 1]
                m = re.search(r'#\[path\s*=\s*"([^"]+)"\]', src_line)
                pending_path_attr = m.group(1) if m else None
            i = j + 1
            continue
        if val == "{":
            depth += 1
        elif val == "}":
            depth -= 1
            if stack and stack[-1][1] == depth:
                stack.pop()
        elif kind == "id" and val in ITEM_KW and i + 1 < len(toks) and toks[i + 1][0] == "id":
            name = toks[i + 1][1]
            info.defs.setdefault(inner(), set()).add(name.removeprefix("r#"))
            if val == "mod" and prev != "::":
                nxt = toks[i + 2][1] if i + 2 < len(toks) else ";"
                info.mods.append((inner(), name, pending_path_attr, nxt == "{"))
                pending_path_attr = None
                if nxt == "{":
                    stack.append((name, depth))
                    depth += 1
                    i += 3
                    continue
        elif kind == "id" and val == "macro_rules" and i + 2 < len(toks):
            info.defs.setdefault(inner(), set()).add(toks[i + 2][1])
        elif kind == "id" and val == "use" and prev not in ("::", "."):
            is_pub = False
            k = i - 1
            if k >= 0 and toks[k][1] == ")":  # pub(crate) / pub(super) / pub(in …)
                while k >= 0 and toks[k][1] != "(":
                    k -= 1
                k -= 1
            if k >= 0 and toks[k][1] == "pub":
                is_pub = True
            acc = []
            j = _use_tree(toks, i + 1, [], acc)
            for segs, glob, alias, ln in acc:
                info.uses.append((inner(), segs, is_pub, ln, glob, alias))
                if alias:
                    info.defs.setdefault(inner(), set())
            while j < len(toks) and toks[j][1] != ";":
                j += 1
            i = j + 1
            continue
        elif (kind == "id" and i + 1 < len(toks) and toks[i + 1][1] == "::"
              and prev not in ("::", "$", "in", ".")):
            # crate::…, super::…, self::…, or child::… (resolved only when `child` is a module
            # declared here; other first segments name other crates, types or locals).
            segs, j = [val], i + 1
            while j + 1 < len(toks) and toks[j][1] == "::" and toks[j + 1][0] == "id":
                segs.append(toks[j + 1][1])
                j += 2
            info.paths.append((inner(), segs, line))
            i = j
            continue
        i += 1
    return info


# --------------------------------------------------------------------------------------------
# A crate: its module tree from the root file, then the edges between files.


class Crate:
    def __init__(self, root_file):
        self.root_file = root_file
        self.files = {}  # file path -> FileInfo
        self.modules = {}  # modpath -> (file path, inner modpath within that file)
        self._load(root_file, ())

    def _load(self, path, modpath):
        if path in self.files or not os.path.isfile(path):
            return
        info = parse(path, modpath)
        self.files[path] = info
        self.modules[modpath] = (path, ())
        base = os.path.dirname(path)
        stem = os.path.splitext(os.path.basename(path))[0]
        is_dir_owner = stem in ("lib", "main", "mod") or modpath == ()
        own_dir = base if is_dir_owner else os.path.join(base, stem)
        for inner, name, path_attr, inline in info.mods:
            child = modpath + inner + (name,)
            if inline:
                self.modules[child] = (path, inner + (name,))
                continue
            sub = os.path.join(own_dir, *inner)
            if path_attr:
                cand = [os.path.join(base if not inner else sub, path_attr)]
            else:
                cand = [os.path.join(sub, name + ".rs"), os.path.join(sub, name, "mod.rs")]
            for c in cand:
                if os.path.isfile(c):
                    self._load(os.path.normpath(c), child)
                    break

    def module_names(self, modpath):
        """Names of child modules of modpath."""
        n = len(modpath)
        return {m[n] for m in self.modules if len(m) == n + 1 and m[:n] == modpath}

    def _defines(self, modpath, name):
        if modpath not in self.modules:
            return False
        path, inner = self.modules[modpath]
        return name in self.files[path].defs.get(inner, set())

    def _reexport(self, modpath, name):
        """The absolute path a `use` in modpath binds `name` to, or None."""
        path, inner = self.modules[modpath]
        for uin, segs, _pub, _ln, glob, alias in self.files[path].uses:
            if uin != inner or glob or not segs:
                continue
            bound = alias or segs[-1]
            if bound == "self" and len(segs) > 1:
                bound = segs[-2]
            if bound == name:
                return self.absolute(modpath, segs)
        return None

    def _globs(self, modpath):
        path, inner = self.modules[modpath]
        for uin, segs, _pub, _ln, glob, _alias in self.files[path].uses:
            if uin == inner and glob:
                yield self.absolute(modpath, segs)

    def absolute(self, modpath, segs):
        """Absolute module path of a path written in modpath, or None when it leaves the crate."""
        if not segs:
            return None
        if segs[0] == "crate":
            return list(segs[1:])
        cur = list(modpath)
        k = 0
        while k < len(segs) and segs[k] in ("super", "self"):
            if segs[k] == "super":
                if not cur:
                    return None
                cur.pop()
            k += 1
        if k:
            return cur + list(segs[k:])
        # Uniform paths: a name declared in this module (a child module or a `use` binding).
        if segs[0] in self.module_names(tuple(modpath)):
            return list(modpath) + list(segs)
        return None

    def resolve(self, abspath, seen=None):
        """The module path that defines what abspath names (following re-exports), or None."""
        if abspath is None:
            return None
        seen = seen or set()
        key = tuple(abspath)
        if key in seen or len(seen) > 20:
            return None
        seen.add(key)
        cur = ()
        for k, seg in enumerate(abspath):
            if seg in ("self",):
                continue
            if seg in self.module_names(cur):
                cur = cur + (seg,)
                continue
            # `seg` is an item of cur, or a name cur re-exports.
            if self._defines(cur, seg):
                return cur
            target = self._reexport(cur, seg)
            if target is not None:
                return self.resolve(target + list(abspath[k + 1:]), seen)
            for g in self._globs(cur):
                if g is None:
                    continue
                r = self.resolve(g + [seg] + list(abspath[k + 1:]), seen)
                if r is not None:
                    return r
            return None if any(g is None for g in self._globs(cur)) else cur
        return cur

    def edges(self):
        """{(from file, to file): first (line, text)} over every import in the crate."""
        out = {}
        for path, info in self.files.items():
            for inner, segs, is_pub, line, glob, _alias in info.uses:
                where = info.modpath + inner
                target = self.resolve(self.absolute(where, segs))
                self._add(out, path, where, target, is_pub, line, segs, glob)
            for inner, segs, line in info.paths:
                where = info.modpath + inner
                target = self.resolve(self.absolute(where, segs))
                self._add(out, path, where, target, False, line, segs, False)
        return out

    def _add(self, out, path, where, target, is_pub, line, segs, glob):
        if target is None:
            return
        to_file = self.modules[target][0]
        if to_file == path:
            return
        # A file's module holds its descendants (inline modules of the file included):
        # re-exporting or calling them is not an import. (`mod child;` is never recorded as an
        # import in the first place.)
        home = self.files[path].modpath
        if target[: len(home)] == home:
            return
        text = "::".join(segs) + ("::*" if glob else "")
        out.setdefault((path, to_file), (line, text))


def cycles(nodes, edges):
    """Strongly connected components with more than one file (Tarjan, iterative)."""
    graph = {n: sorted({b for (a, b) in edges if a == n}) for n in nodes}
    index, low, on, stack, comps = {}, {}, set(), [], []
    counter = [0]
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, 0)]
        while work:
            v, pi = work.pop()
            if pi == 0:
                index[v] = low[v] = counter[0]
                counter[0] += 1
                stack.append(v)
                on.add(v)
            succ = graph.get(v, [])
            if pi < len(succ):
                work.append((v, pi + 1))
                w = succ[pi]
                if w not in index:
                    work.append((w, 0))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    comps.append(sorted(comp))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return comps


# --------------------------------------------------------------------------------------------
# The workspace.


def source_dirs(root):
    dirs = []
    crates = os.path.join(root, "crates")
    if os.path.isdir(crates):
        for name in sorted(os.listdir(crates)):
            d = os.path.join(crates, name, "src")
            if os.path.isdir(d):
                dirs.append(d)
    for d in ("examples/src", "tests/src"):
        if os.path.isdir(os.path.join(root, d)):
            dirs.append(os.path.join(root, d))
    return dirs


def crate_roots(src):
    roots = [os.path.join(src, f) for f in ("lib.rs", "main.rs") if os.path.isfile(os.path.join(src, f))]
    bins = os.path.join(src, "bin")
    if os.path.isdir(bins):
        for name in sorted(os.listdir(bins)):
            p = os.path.join(bins, name)
            if name.endswith(".rs"):
                roots.append(p)
            elif os.path.isfile(os.path.join(p, "main.rs")):
                roots.append(os.path.join(p, "main.rs"))
    return roots


def check(root):
    """Returns the list of findings (strings); empty when the tree passes."""
    findings = []
    for src in source_dirs(root):
        for dirpath, _dirs, files in os.walk(src):
            for name in sorted(files):
                if name.endswith(".rs"):
                    p = os.path.join(dirpath, name)
                    with open(p, encoding="utf-8") as f:
                        n = sum(1 for _ in f)
                    if n > MAX_LINES:
                        findings.append(
                            f"long file: {os.path.relpath(p, root)}: {n} lines (limit {MAX_LINES})"
                        )
        for rf in crate_roots(src):
            crate = Crate(os.path.normpath(rf))
            edges = crate.edges()
            for comp in cycles(list(crate.files), edges):
                rel = [os.path.relpath(p, root) for p in comp]
                lines = [f"import circle in {os.path.relpath(rf, root)}: " + " <-> ".join(rel)]
                for a in comp:
                    for b in comp:
                        if (a, b) in edges:
                            ln, text = edges[(a, b)]
                            lines.append(
                                f"    {os.path.relpath(a, root)}:{ln} -> "
                                f"{os.path.relpath(b, root)} ({text})"
                            )
                findings.append("\n".join(lines))
    return findings


# --------------------------------------------------------------------------------------------
# Self-test: fixture trees with known circles and long files, and ones that must pass.


def _write(root, files):
    for rel, text in files.items():
        p = os.path.join(root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8") as f:
            f.write(text)


def self_test():
    cases = [
        (
            "a circle through use crate:: and use super::",
            {
                "crates/c/src/lib.rs": "mod a;\nmod b;\npub use a::A;\n",
                "crates/c/src/a.rs": "use crate::b::B;\npub struct A(B);\n",
                "crates/c/src/b.rs": "use super::a::A;\npub struct B;\nfn f(_: A) {}\n",
            },
            ["import circle in crates/c/src/lib.rs: crates/c/src/a.rs <-> crates/c/src/b.rs"],
        ),
        (
            "a circle through a grouped use and a path in an expression, inside a directory",
            {
                "crates/c/src/lib.rs": "pub mod d;\n",
                "crates/c/src/d/mod.rs": "mod x;\nmod y;\n",
                "crates/c/src/d/x.rs": "use crate::{d::y::{self, Y}};\npub fn x() {}\n",
                "crates/c/src/d/y.rs": "pub struct Y;\nfn g() { crate::d::x::x() }\n",
            },
            ["import circle in crates/c/src/lib.rs: crates/c/src/d/x.rs <-> crates/c/src/d/y.rs"],
        ),
        (
            "a circle through a re-export: the name resolves to the file that defines it",
            {
                "crates/c/src/lib.rs": "mod p;\nmod q;\npub use p::inner::Thing;\n",
                "crates/c/src/p.rs": "pub mod inner;\n",
                "crates/c/src/p/inner.rs": "pub struct Thing;\nuse crate::q::Q;\n",
                "crates/c/src/q.rs": "pub struct Q;\nuse crate::Thing;\n",
            },
            ["import circle in crates/c/src/lib.rs: crates/c/src/p/inner.rs <-> crates/c/src/q.rs"],
        ),
        (
            "a three-file circle in a binary",
            {
                "examples/src/main.rs": "mod a;\nmod b;\nmod c;\nfn main() {}\n",
                "examples/src/a.rs": "use crate::b::f;\n",
                "examples/src/b.rs": "pub fn f() { crate::c::g() }\n",
                "examples/src/c.rs": "pub fn g() {}\nuse super::a;\n",
            },
            ["import circle in examples/src/main.rs: examples/src/a.rs <-> examples/src/b.rs"
             " <-> examples/src/c.rs"],
        ),
        (
            "a long file, and one exactly at the limit",
            {
                "tests/src/lib.rs": "mod long;\nmod ok;\n",
                "tests/src/long.rs": "//\n" * (MAX_LINES + 1),
                "tests/src/ok.rs": "//\n" * MAX_LINES,
            },
            [f"long file: tests/src/long.rs: {MAX_LINES + 1} lines (limit {MAX_LINES})"],
        ),
        (
            "no circle: a parent's mod and pub use of its children, comments, strings, tests",
            {
                "crates/c/src/lib.rs": (
                    "//! See [`crate::a::A`].\nmod a;\nmod b;\npub use a::A;\npub use b::*;\n"
                    "pub(crate) use self::b::B as Bee;\n"
                ),
                "crates/c/src/a.rs": (
                    "use crate::b::B;\n/// Not an import: crate::lib\npub struct A(B);\n"
                    "const S: &str = \"crate::b::x use super::b\";\nconst C: char = '\"';\n"
                    "#[cfg(test)]\nmod tests {\n    use super::*;\n    fn t(_: A) {}\n}\n"
                ),
                "crates/c/src/b.rs": "pub struct B;\nfn h<'a>(x: &'a str) -> &'a str { x }\n",
            },
            [],
        ),
        (
            "no circle: an item of the root that its children use, when the root uses none",
            {
                "crates/c/src/lib.rs": "pub mod a;\npub mod b;\npub struct Root;\n",
                "crates/c/src/a.rs": "use crate::Root;\nuse crate::b::B;\n",
                "crates/c/src/b.rs": "use crate::Root;\npub struct B;\n",
            },
            [],
        ),
        (
            "no circle: a parent's code uses its child, which uses the parent's items",
            {
                "crates/c/src/lib.rs": "mod m;\n",
                "crates/c/src/m/mod.rs": "mod k;\npub struct M;\nfn f() { k::helper() }\n",
                "crates/c/src/m/k.rs": "use super::M;\npub fn helper() {}\n",
            },
            [],
        ),
        (
            "a circle between cousins, through their parents' re-exports",
            {
                "crates/c/src/lib.rs": "mod p;\nmod q;\n",
                "crates/c/src/p/mod.rs": "mod x;\npub use x::X;\n",
                "crates/c/src/p/x.rs": "use crate::q::Y;\npub struct X;\n",
                "crates/c/src/q/mod.rs": "mod y;\npub use y::Y;\n",
                "crates/c/src/q/y.rs": "pub struct Y;\nfn f(_: crate::p::X) {}\n",
            },
            ["import circle in crates/c/src/lib.rs: crates/c/src/p/x.rs <-> crates/c/src/q/y.rs"],
        ),
    ]
    failed = 0
    for title, files, expected in cases:
        with tempfile.TemporaryDirectory() as root:
            _write(root, files)
            got = [f.split("\n")[0] for f in check(root)]
        if got != expected:
            failed += 1
            print(f"FAIL: {title}\n  expected: {expected}\n  got:      {got}")
        else:
            print(f"ok: {title}")
    if failed:
        print(f"self-test: {failed} of {len(cases)} cases failed")
        return 1
    print(f"self-test: {len(cases)} cases passed")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    findings = check(os.path.abspath(root))
    for f in findings:
        print(f)
    if findings:
        print(f"structure: {len(findings)} finding(s)")
        return 1
    print("structure: ok (no file over 800 lines, no import circle)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
