#!/usr/bin/env bash
# A private PostgreSQL 15 cluster in a folder of our own, reached only through a Unix socket in it.
#   scripts/pg.sh start DIR [PORT]   create the cluster on first use, then start it
#   scripts/pg.sh stop DIR           stop it (no error if it is not running)
#   scripts/pg.sh url DIR [PORT] [DB] print the DATABASE_URL for it
# initdb and pg_ctl refuse to run as root, so as root they run as the postgres user, who then
# owns DIR.
set -euo pipefail
BIN=/usr/lib/postgresql/15/bin
cmd=${1:?usage: pg.sh start|stop|url DIR [PORT] [DB]}
dir=${2:?usage: pg.sh start|stop|url DIR [PORT] [DB]}
port=${3:-54329}
db=${4:-rivers}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$cmd" in
  start)
    if [ ! -f "$dir/data/PG_VERSION" ]; then
      mkdir -p "$dir/data" "$dir/socket"
      [ "$(id -u)" = 0 ] && chown -R postgres:postgres "$dir"
      as_owner "$BIN/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    fi
    if ! as_owner "$BIN/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
      as_owner "$BIN/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 \
        -o "-k $dir/socket -p $port -c listen_addresses='' -c max_connections=200 -c fsync=${PG_FSYNC:-on}" start >/dev/null \
        || { tail -20 "$dir/postgres.log" >&2; exit 1; }
    fi
    if ! as_owner "$BIN/psql" -h "$dir/socket" -p "$port" -U postgres -d postgres -Atqc "SELECT 1 FROM pg_database WHERE datname = '$db'" | grep -q 1; then
      as_owner "$BIN/createdb" -h "$dir/socket" -p "$port" -U postgres "$db"
    fi
    ;;
  stop)
    if [ -f "$dir/data/PG_VERSION" ]; then
      as_owner "$BIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    ;;
  url)
    echo "postgres://postgres@localhost:$port/$db?host=$dir/socket"
    ;;
  *) echo "usage: pg.sh start|stop|url DIR [PORT] [DB]" >&2; exit 2 ;;
esac
