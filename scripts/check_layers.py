#!/usr/bin/env python3
"""The build's layering rule, checked on every `make test` (ctest entry `layering`).

Each folder of src/ is a layer; a file may include headers of its own folder and of the
folders listed for it below (they sit lower in the data path), never of a folder above. The
public headers (include/sluice) include only each other. Also checked: no source file of
src/ or include/ is longer than MAX_LINES lines. Exit status 1 lists every violation.

Run: scripts/check_layers.py [REPO_ROOT]
"""
import os
import re
import sys

MAX_LINES = 600

# folder -> the folders (besides itself) whose headers it may include. "sluice" is the
# public API (include/sluice); every layer may include it.
ALLOWED = {
    "util": set(),
    "conf": {"util"},  # the list of configuration keys sluice reads, with their defaults
    "io": {"util"},
    "checkpoint": {"io", "util"},
    "state": {"io", "util"},
    "iceberg": {"conf", "io", "util"},
    "plan": {"io", "util"},
    "exec": {"plan", "state", "util"},
    "source": {"plan", "checkpoint", "iceberg", "io", "util"},
    "sink": {"plan", "checkpoint", "iceberg", "io", "util"},
    "runtime": {"exec", "plan", "source", "sink", "state", "checkpoint", "io", "util"},
    "api": {"runtime", "exec", "plan", "source", "sink", "state", "checkpoint", "iceberg", "io", "conf", "util"},
    "sql": {"api", "plan", "source", "sink", "io", "conf", "util"},  # registries, paths; runs queries via api
    "cli": {"sql", "api", "runtime", "exec", "plan", "source", "sink", "state", "checkpoint", "iceberg", "io",
            "conf", "util"},
    # The Python package's native extension (not part of sluice_core): the public API, plus the
    # SQL layer's expression parser for expr()/selectExpr().
    "python": {"sql", "api", "plan", "util"},
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def main() -> int:
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    problems = []
    for top in ("src", "include"):
        for folder, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith((".h", ".cc")):
                    continue
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, root)
                layer = "sluice" if top == "include" else os.path.relpath(path, os.path.join(root, "src")).split(os.sep)[0]
                if layer != "sluice" and layer not in ALLOWED:
                    problems.append(f"{rel}: folder src/{layer}/ has no place in the layer table of {__file__}")
                    continue
                with open(path, encoding="utf-8", errors="replace") as f:
                    lines = f.readlines()
                if len(lines) > MAX_LINES:
                    problems.append(f"{rel}: {len(lines)} lines (at most {MAX_LINES}); split it")
                for number, line in enumerate(lines, 1):
                    m = INCLUDE.match(line)
                    if not m or "/" not in m.group(1):
                        continue
                    target = m.group(1).split("/")[0]
                    if target == layer or target == "sluice":
                        continue
                    if layer == "sluice" or target not in ALLOWED.get(layer, set()):
                        what = "public header" if layer == "sluice" else f"src/{layer}/"
                        problems.append(f"{rel}:{number}: {what} includes \"{m.group(1)}\" from src/{target}/, "
                                        f"which is not below it")
    for p in problems:
        print(p)
    print(f"layering: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
