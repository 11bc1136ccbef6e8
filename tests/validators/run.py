#!/usr/bin/env python3
"""Run the shared provider validators (../shared/validators) over many files in one process.

    run.py VALIDATORS_DIR PLAN.json

PLAN.json is a JSON array of {"script": "tools" | "results" | "responses", "provider": P,
"file": F}. Each entry is passed to the validator script's own entry point exactly as its
command line would be (validate_tools.py P F / validate_tool_results.py P F /
validate_responses.py P F); importing the SDKs once instead of once per file is the only
difference. FAIL and WARN lines are printed as the scripts print them, then one summary line
per entry and a total line:

    TOTAL tools: 1234 passed, 0 failed, 56 warnings; results: ...

Exit status 1 when any entry failed.
"""
import contextlib
import io
import json
import sys
from pathlib import Path


def main() -> int:
    validators = Path(sys.argv[1]).resolve()
    plan = json.loads(Path(sys.argv[2]).read_text())
    sys.path.insert(0, str(validators))
    import validate_responses  # noqa: E402
    import validate_tool_results  # noqa: E402
    import validate_tools  # noqa: E402

    scripts = {
        "tools": ("validate_tools.py", lambda argv: validate_tools.main(argv)),
        "results": ("validate_tool_results.py", None),
        "responses": ("validate_responses.py", None),
    }
    totals: dict[str, list[int]] = {}
    any_failed = False
    for entry in plan:
        kind, provider, file = entry["script"], entry["provider"], entry["file"]
        name, call = scripts[kind]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            if call is not None:
                code = call([provider, file])
            else:
                module = validate_tool_results if kind == "results" else validate_responses
                saved = sys.argv
                sys.argv = [name, provider, file]
                try:
                    code = module.main()
                finally:
                    sys.argv = saved
        text = out.getvalue()
        lines = text.splitlines()
        warnings = sum(1 for line in lines if line.startswith("WARN"))
        summary = next((line for line in reversed(lines) if line.endswith(" failed")), "no summary")
        passed, failed = 0, 0
        if summary != "no summary":
            parts = summary.replace(",", "").split()
            passed, failed = int(parts[0]), int(parts[2])
        t = totals.setdefault(kind, [0, 0, 0])
        t[0] += passed
        t[1] += failed
        t[2] += warnings
        for line in lines:
            if line.startswith(("FAIL", "WARN")):
                print(line)
        print(f"{name} {provider} {file}: {summary}, {warnings} warnings (exit {code})")
        if code != 0:
            any_failed = True
    print("TOTAL " + "; ".join(f"{k}: {v[0]} passed, {v[1]} failed, {v[2]} warnings" for k, v in totals.items()))
    return 1 if any_failed else 0


if __name__ == "__main__":
    sys.exit(main())
