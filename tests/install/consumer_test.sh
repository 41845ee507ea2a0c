#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, then the README's C++ example (examples/cpp) is
# built as an outside project against the installed package, with find_package(sluice) and with
# pkg-config, and run on two input files. Also checks that the README shows the example as it
# is, that the installed headers expose no internals, and that the installed CLI runs. Every
# program runs from a directory holding a decoy of each library the CLI and libsluice.so need:
# none may be looked for in the current directory.
# Usage: consumer_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/sluice-install-test-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# 1. The README shows examples/cpp/quickstart.cc and its CMakeLists.txt verbatim.
extract() {  # the fenced block of README.md whose first line is $1
  awk -v first="$1" '
    /^```/ { if (inblock) { if (keep) exit; inblock = 0; next } inblock = 1; started = 0; next }
    inblock && !started { started = 1; keep = ($0 == first) }
    inblock && keep { print }' "$src/README.md"
}
extract "// examples/cpp/quickstart.cc: streams the JSON files of IN_DIR into parquet files under OUT_DIR," \
  > "$work/readme_example.cc"
diff -u "$src/examples/cpp/quickstart.cc" "$work/readme_example.cc" || fail "README.md's C++ example differs from examples/cpp/quickstart.cc"
extract "# A program built against an installed sluice: cmake -S . -B build -DCMAKE_PREFIX_PATH=<prefix>" \
  > "$work/readme_cmake.txt"
diff -u "$src/examples/cpp/CMakeLists.txt" "$work/readme_cmake.txt" || fail "README.md's CMakeLists.txt differs from examples/cpp/CMakeLists.txt"

# 2. Install.
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; fail "cmake --install"; }
for f in bin/sluice include/sluice/sluice.h lib/libsluice.so lib/cmake/sluice/sluiceConfig.cmake \
         lib/cmake/sluice/sluiceTargets.cmake lib/pkgconfig/sluice.pc; do
  [ -e "$prefix/$f" ] || fail "$f was not installed"
done
if grep -nE 'plan::|runtime::|io::|sink::|source::|impl\(\)' "$prefix"/include/sluice/*.h; then
  fail "the installed headers name internal types"
fi
# Decoys: a file named like each library the CLI and the library need (not a library at all).
# The loader takes an empty RPATH entry for the current directory; a program that found one of
# these would fail to start ("file too short").
decoys="$work/decoys"
mkdir -p "$decoys"
for f in "$build/bin/sluice" "$build/lib/libsluice.so" "$prefix/bin/sluice" "$prefix/lib/libsluice.so"; do
  objdump -p "$f" | awk '$1 == "NEEDED" { print $2 }'
done | sort -u | while read -r lib; do echo "not a library" >"$decoys/$lib"; done
[ "$(ls "$decoys" | wc -l)" -ge 3 ] || fail "could not read the libraries the CLI and libsluice.so need"
for cli in "$build/bin/sluice" "$prefix/bin/sluice"; do
  (cd "$decoys" && "$cli" --help >/dev/null) || fail "$cli does not run from a directory holding libraries of its names"
done

# 3. Input: one row kept, one filtered out (price <= 0).
mkdir -p "$work/in"
echo '{"id":1,"name":"ada","price":120.5}' >"$work/in/1.json"
echo '{"id":2,"name":"bob","price":-1}' >"$work/in/2.json"

check_run() {  # $1 = the built program, $2 = a fresh run directory
  (cd "$decoys" && "$1" "$work/in" "$2/out" "$2/ckpt") >"$2/stdout" 2>"$2/stderr" || { cat "$2/stderr"; fail "$1 failed"; }
  grep -q "^rows committed: 1$" "$2/stdout" || { cat "$2/stdout"; fail "$1: expected one committed row"; }
  grep -q "ADA" "$2/stdout" || { cat "$2/stdout"; fail "$1: expected the upper-cased name"; }
}

# 4. find_package(sluice) from an outside CMake project.
cp "$src/examples/cpp/quickstart.cc" "$src/examples/cpp/CMakeLists.txt" "$work/"
mkdir -p "$work/consumer" "$work/run1" "$work/run2"
cp "$work/quickstart.cc" "$work/CMakeLists.txt" "$work/consumer/"
cmake -S "$work/consumer" -B "$work/consumer/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
  >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail "configuring the consumer"; }
cmake --build "$work/consumer/build" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "building the consumer"; }
check_run "$work/consumer/build/quickstart" "$work/run1"

# 5. pkg-config.
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# shellcheck disable=SC2046
c++ -std=c++20 -o "$work/quickstart_pc" "$work/quickstart.cc" $(pkg-config --cflags --libs sluice) \
  >"$work/pc.log" 2>&1 || { cat "$work/pc.log"; fail "building with pkg-config"; }
check_run "$work/quickstart_pc" "$work/run2"
echo "install consumer test: OK"
