#!/usr/bin/env python3
"""Checks that cmake/Fuzz.cmake lists every library source the libFuzzer targets reach.

The libFuzzer build compiles only the sources in Fuzz.cmake's list, so a target that starts to
reach another file stops linking there, and nothing else builds that configuration. This check
works on the ordinary build's object files instead: starting from the fuzz targets' object, it
follows every undefined symbol to the library object that defines it (strong definitions only:
inline functions and templates are emitted wherever they are used), and names each object it
reaches whose source the list lacks.

usage: check_fuzz_sources.py SOURCE_DIR BUILD_DIR
"""
from __future__ import annotations

import concurrent.futures
import re
import subprocess
import sys
from pathlib import Path


def fuzz_list(source_dir: Path) -> set[str]:
    text = (source_dir / "cmake" / "Fuzz.cmake").read_text()
    m = re.search(r"set\(_fuzz_sources(.*?)\)", text, re.S)
    if not m:
        raise SystemExit("cmake/Fuzz.cmake: no set(_fuzz_sources ...) list")
    return {s for s in m.group(1).split() if s.endswith(".cc")}


def symbols(obj: Path) -> tuple[set[str], set[str]]:
    """(strong definitions, undefined references) of one object file."""
    out = subprocess.run(["nm", "-P", str(obj)], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            undefined.add(name)
        elif kind in "TDBR":   # strong text, data, bss, read-only data (globals)
            defined.add(name)
    return defined, undefined


def main() -> int:
    source_dir, build_dir = Path(sys.argv[1]), Path(sys.argv[2])
    lib_dir = build_dir / "CMakeFiles" / "sluice_core.dir" / "src"
    start = build_dir / "tests" / "CMakeFiles" / "unit_tests.dir" / "fuzz" / "fuzz_targets.cc.o"
    if not lib_dir.is_dir() or not start.exists():
        print(f"check_fuzz_sources: {lib_dir} or {start} missing: build sluice_core and unit_tests first")
        return 1
    owner: dict[str, str] = {}
    needs: dict[str, set[str]] = {}
    objects = sorted(lib_dir.rglob("*.o"))
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        tables = list(pool.map(symbols, objects))
    for obj, (defined, undefined) in zip(objects, tables):
        source = str(obj.relative_to(lib_dir))[:-2]     # "checkpoint/checkpoint.cc"
        needs[source] = undefined
        for name in defined:
            owner.setdefault(name, source)
    _, todo = symbols(start)
    reached: set[str] = set()
    pending = list(todo)
    while pending:
        name = pending.pop()
        source = owner.get(name)
        if source is None or source in reached:
            continue
        reached.add(source)
        pending.extend(needs[source])
    listed = fuzz_list(source_dir)
    missing = sorted(reached - listed)
    if missing:
        print("cmake/Fuzz.cmake: the libFuzzer targets reach these sources, which its _fuzz_sources list lacks "
              "(the fuzz build would not link): " + ", ".join(missing))
        return 1
    print(f"check_fuzz_sources: the fuzz targets reach {len(reached)} library sources, all listed in cmake/Fuzz.cmake")
    return 0


if __name__ == "__main__":
    sys.exit(main())
