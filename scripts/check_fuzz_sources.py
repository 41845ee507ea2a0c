#!/usr/bin/env python3
"""Checks that cmake/FuzzSources.cmake lists every library source the libFuzzer targets reach.

The libFuzzer build compiles only the sources in that list, so a target that starts to reach
another file stops linking there, and nothing else builds that configuration. This check works on
the ordinary build's object files instead: starting from the fuzz targets' object, it follows
every undefined symbol to the library object that defines it (strong definitions only: inline
functions and templates are emitted wherever they are used), and names the sources of each object
it reaches that the list lacks.

A unity object (cmake/Unity.cmake) stands for the sources its generated file includes. The listed
sources are batched apart from the others, so an object is either all listed or all not: reaching
one of the latter names the sources of its batch, one of which defines the symbol.

usage: check_fuzz_sources.py SOURCE_DIR BUILD_DIR
"""
from __future__ import annotations

import concurrent.futures
import re
import subprocess
import sys
from pathlib import Path


def fuzz_list(source_dir: Path) -> set[str]:
    text = (source_dir / "cmake" / "FuzzSources.cmake").read_text()
    m = re.search(r"set\(SLUICE_FUZZ_SOURCES(.*?)\)", text, re.S)
    if not m:
        raise SystemExit("cmake/FuzzSources.cmake: no set(SLUICE_FUZZ_SOURCES ...) list")
    return {s for s in m.group(1).split() if s.endswith(".cc")}


def object_sources(obj: Path, lib_dir: Path, source_dir: Path) -> list[str]:
    """The library sources (relative to src/) compiled into one object of sluice_core."""
    rel = obj.relative_to(lib_dir)
    if rel.parts[0] != "Unity":
        return [str(rel.relative_to("src"))[:-2]]   # src/checkpoint/checkpoint.cc.o
    generated = obj.with_suffix("")               # Unity/unity_exec_0_cxx.cxx
    src_root = str((source_dir / "src").resolve()) + "/"
    members = re.findall(r'#include "([^"]+)"', generated.read_text())
    return [m[len(src_root):] if m.startswith(src_root) else m for m in members]


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
    lib_dir = build_dir / "CMakeFiles" / "sluice_core.dir"
    start = build_dir / "tests" / "CMakeFiles" / "unit_tests.dir" / "fuzz" / "fuzz_targets.cc.o"
    if not lib_dir.is_dir() or not start.exists():
        print(f"check_fuzz_sources: {lib_dir} or {start} missing: build sluice_core and unit_tests first")
        return 1
    owner: dict[str, Path] = {}
    needs: dict[Path, set[str]] = {}
    objects = sorted(lib_dir.rglob("*.o"))
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        tables = list(pool.map(symbols, objects))
    for obj, (defined, undefined) in zip(objects, tables):
        needs[obj] = undefined
        for name in defined:
            owner.setdefault(name, obj)
    _, todo = symbols(start)
    reached: dict[Path, str] = {}   # object -> the first symbol the targets need from it
    pending = list(todo)
    while pending:
        name = pending.pop()
        obj = owner.get(name)
        if obj is None or obj in reached:
            continue
        reached[obj] = name
        pending.extend(needs[obj])
    listed = fuzz_list(source_dir)
    problems = []
    sources = 0
    for obj, name in sorted(reached.items()):
        members = object_sources(obj, lib_dir, source_dir)
        sources += len(members)
        unlisted = [m for m in members if m not in listed]
        if unlisted:
            where = unlisted[0] if len(unlisted) == 1 else "one of " + ", ".join(unlisted)
            problems.append(f"{where} (object {obj.relative_to(lib_dir)}, reached through {name})")
    if problems:
        print("cmake/FuzzSources.cmake: the libFuzzer targets reach sources its list lacks (the fuzz build would not "
              "link): " + "; ".join(problems))
        return 1
    print(f"check_fuzz_sources: the fuzz targets reach {len(reached)} library objects ({sources} sources), all "
          "listed in cmake/FuzzSources.cmake")
    return 0


if __name__ == "__main__":
    sys.exit(main())
