#!/usr/bin/env bash
# Set-up for the benchmarks (bench/run, `make bench`): the repo's own set-up and build, then the
# benchmark-only Python packages. Installs only what is missing; `make test` never runs this.
#   - bench/requirements.txt       -> the repo's .venv (DuckDB, matplotlib, psutil)
#   - bench/requirements-flink.txt -> bench/.venv-flink (PyFlink; see that file for why apart)
# A stamp file holding a copy of each requirements file marks a finished install.
set -euo pipefail
cd "$(dirname "$0")/.."

make build

stamp=.venv/.bench-requirements.stamp
if [ ! -f "$stamp" ] || ! cmp -s bench/requirements.txt "$stamp"; then
  echo "bench setup: installing bench/requirements.txt into .venv"
  .venv/bin/pip install -q -r bench/requirements.txt
  cp bench/requirements.txt "$stamp"
fi

if [ "${BENCH_NO_FLINK:-0}" != 1 ]; then
  fvenv=bench/.venv-flink
  fstamp=$fvenv/.requirements.stamp
  if [ ! -x "$fvenv/bin/python" ]; then
    echo "bench setup: creating $fvenv"
    # the same interpreter as the repo's .venv (apache-flink 2.3.0 ships cp311 wheels)
    "$(.venv/bin/python -c 'import sys; print(sys._base_executable)')" -m venv "$fvenv"
  fi
  if [ ! -f "$fstamp" ] || ! cmp -s bench/requirements-flink.txt "$fstamp"; then
    echo "bench setup: installing bench/requirements-flink.txt into $fvenv"
    "$fvenv/bin/pip" install -q -r bench/requirements-flink.txt
    cp bench/requirements-flink.txt "$fstamp"
  fi
  # The Parquet format is not in PyFlink's wheel: Flink's docs add the flink-sql-parquet jar
  # (pipeline.jars), which needs Hadoop's classes (the shaded hadoop-client-api/-runtime jars).
  # Fetched from Maven Central with Maven itself.
  for artifact in org.apache.flink:flink-sql-parquet:2.3.0 org.apache.hadoop:hadoop-client-api:3.3.6 \
                  org.apache.hadoop:hadoop-client-runtime:3.3.6; do
    name=$(echo "$artifact" | cut -d: -f2)-$(echo "$artifact" | cut -d: -f3).jar
    [ -f "$fvenv/jars/$name" ] && continue
    if ! command -v mvn >/dev/null 2>&1; then
      SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
      $SUDO apt-get update -qq
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends maven
    fi
    mvn -q -B dependency:copy -Dartifact="$artifact" -DoutputDirectory="$fvenv/jars"
  done
fi
