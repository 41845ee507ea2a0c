#!/usr/bin/env bash
# One-time set-up shared by `make build`, `make demo` and `make test`.
# Installs only what is missing: Debian packages via apt-get and a repo-local .venv
# with the pinned Python packages of requirements.txt. Safe to run repeatedly.
set -euo pipefail
cd "$(dirname "$0")/.."

DEB_PACKAGES=(cmake ninja-build g++ make pkg-config libgtest-dev libgmock-dev nlohmann-json3-dev libcli11-dev
              libpg-query-dev libavro-dev libsqlite3-dev libpq-dev libssl-dev librocksdb-dev openjdk-17-jre-headless
              postgresql)  # server binaries: tests start a throwaway server for the Iceberg SQL catalog

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
