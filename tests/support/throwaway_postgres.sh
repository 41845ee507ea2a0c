#!/usr/bin/env bash
# Starts (or stops) a throwaway PostgreSQL server in DIR for tests, listening only on a Unix
# socket in DIR. Prints the libpq URI on success. Uses Debian's postgresql server binaries;
# exits 3 when they are not installed. As root, the server runs as the `postgres` user
# (initdb refuses root).
#   throwaway_postgres.sh start DIR PORT
#   throwaway_postgres.sh stop DIR
set -euo pipefail
cmd=$1 dir=$2
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
[ -n "$bin" ] && [ -x "$bin/initdb" ] || { echo "no PostgreSQL server binaries" >&2; exit 3; }
as_pg() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
case "$cmd" in
  start)
    port=$3
    mkdir -p "$dir/data" "$dir/sock"
    chmod 755 "$dir"
    [ "$(id -u)" -eq 0 ] && chown -R postgres "$dir/data" "$dir/sock"
    as_pg "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -N >"$dir/initdb.log" 2>&1
    as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/sock/server.log" -w -t 30 \
      -o "-k $dir/sock -p $port -c listen_addresses=''" start >/dev/null
    echo "postgresql://postgres@/postgres?host=$dir/sock&port=$port"
    ;;
  stop)
    as_pg "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    ;;
esac
