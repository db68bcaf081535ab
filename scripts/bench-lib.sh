# Shared by the benchmark scripts that run a release server (bench-apps.sh, bench-api.sh):
#   . scripts/bench-lib.sh; bench_setup NAME
# builds `rivers` in release ($bin), makes $tmp (removed on exit), starts a throwaway PostgreSQL
# on a free port and migrates it (DATABASE_URL), and picks $app_port for the server. A server
# started later goes in $server_pid, so that it is stopped on exit too.
# Installs the Debian packages named, refreshing the package lists first only when they are
# missing or stale (a fresh machine has none).
bench_install() {
  [ $# -gt 0 ] || return 0
  local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1 ||
    { $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null; }
}

bench_setup() {
  # BENCH_BIN=dir uses a `rivers` already built there instead of building a release one.
  if [ -n "${BENCH_BIN:-}" ]; then
    bin=$BENCH_BIN
  else
    swift build -c release --product rivers 2>&1 | tail -1
    bin=$(swift build -c release --show-bin-path)
  fi
  tmp=$(mktemp -d "/tmp/rivers-bench-$1.XXXXXX"); chmod 755 "$tmp"
  local db_port=$((41000 + RANDOM % 2000))
  app_port=$((43000 + RANDOM % 2000))
  server_pid=
  trap bench_cleanup EXIT
  PG_FSYNC=off scripts/pg.sh start "$tmp/pg" "$db_port" rivers >/dev/null
  DATABASE_URL=$(scripts/pg.sh url "$tmp/pg" "$db_port" rivers)
  export DATABASE_URL
  "$bin/rivers" migrate >/dev/null
}

bench_cleanup() {
  # shellcheck disable=SC2086 # one or more pids
  [ -n "${server_pid:-}" ] && kill $server_pid 2>/dev/null || true
  scripts/pg.sh stop "$tmp/pg" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}

# Starts `rivers serve` on $app_port and waits until it is ready.
bench_serve() {
  HOST=127.0.0.1 PORT=$app_port LOG_LEVEL=error "$bin/rivers" serve >"$tmp/server.log" 2>&1 &
  server_pid=$!
  python3 scripts/wait-for-server.py "http://127.0.0.1:$app_port" "$server_pid" "$tmp/server.log"
}
