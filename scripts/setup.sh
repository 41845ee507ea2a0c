#!/usr/bin/env bash
# One-time set-up shared by `make build`, `make demo` and `make test` (`make fuzz`: with argument fuzz).
# Installs only what is missing: Debian packages via apt-get and a repo-local .venv
# with the pinned Python packages of requirements.txt. Safe to run repeatedly.
set -euo pipefail
cd "$(dirname "$0")/.."

DEB_PACKAGES=(cmake ninja-build g++ make pkg-config libgtest-dev libgmock-dev nlohmann-json3-dev libcli11-dev
              libpg-query-dev libavro-dev libsqlite3-dev libpq-dev libssl-dev librocksdb-dev openjdk-17-jre-headless
              postgresql  # server binaries: tests start a throwaway server for the Iceberg SQL catalog
              librdkafka-dev maven  # the Kafka source/sink; maven fetches the test broker's jars
              libsimdjson-dev)  # the JSON-lines file reader
# `scripts/setup.sh fuzz` (run by `make fuzz`) adds clang and its libFuzzer runtime for the
# libFuzzer targets of tests/fuzz; `make build`/`make test` never install them.
if [ "${1:-}" = fuzz ]; then
  DEB_PACKAGES+=(clang libclang-rt-14-dev)
fi

missing=()
for p in "${DEB_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# A JDK may already be present without Debian's package (e.g. a Temurin install).
if command -v java >/dev/null 2>&1; then
  missing=("${missing[@]/openjdk-17-jre-headless}")
fi
missing=($(printf '%s\n' "${missing[@]}" | grep -v '^$' || true))
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

PY=${PYTHON:-python3}
# The Python extension (sluice._sluice) needs the interpreter's C headers; Debian's python3
# has them in python3-dev.
if ! "$PY" -c 'import os, sysconfig, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' 2>/dev/null \
   && ! dpkg-query -W -f='${Status}' python3-dev 2>/dev/null | grep -q "install ok installed"; then
  echo "setup: installing Debian package python3-dev (headers for the Python extension)"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends python3-dev
fi
stamp=.venv/.requirements.stamp
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$PY" -m venv .venv
fi
if [ ! -f "$stamp" ] || ! cmp -s requirements.txt "$stamp"; then
  echo "setup: installing pinned Python packages into .venv (requirements.txt)"
  .venv/bin/pip install -q -r requirements.txt
  cp requirements.txt "$stamp"
fi

# The Apache Kafka broker the Kafka tests start (jars into a git-ignored cache; skipped when there).
scripts/kafka-broker fetch
# `import sluice` in the repo's .venv: the pure-Python half of the package (python/) and the
# extension the build puts in build/python, found relative to the venv that runs (so one venv
# shared by several checkouts serves each from its own tree). `pip install .` is the other way.
site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
pth="$site/sluice-source-tree.pth"
line='import os, sys; _r = os.path.dirname(sys.prefix); sys.path.extend(p for p in (os.path.join(_r, "python"), os.path.join(_r, "build", "python")) if os.path.isdir(p))'
if [ ! -f "$pth" ] || [ "$(cat "$pth")" != "$line" ]; then
  echo "$line" > "$pth"
fi
