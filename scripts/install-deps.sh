#!/usr/bin/env bash
# Installs what Rivers needs from Debian's packages, only what is missing. Safe to run again.
set -euo pipefail

need=()
[ -x /usr/lib/postgresql/15/bin/initdb ] || need+=(postgresql-15)
command -v psql >/dev/null 2>&1 || need+=(postgresql-client-15)
dpkg -s zlib1g-dev >/dev/null 2>&1 || need+=(zlib1g-dev)   # HummingbirdTesting links zlib
command -v runuser >/dev/null 2>&1 || need+=(util-linux)
command -v node >/dev/null 2>&1 || need+=(nodejs)          # the editor's unit tests (node --test)
if [ "${RIVERS_BROWSER_TESTS:-}" = 1 ]; then
  command -v chromium >/dev/null 2>&1 || need+=(chromium)
  command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)
fi

if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if ! command -v swift >/dev/null 2>&1 && [ ! -x /opt/swift/usr/bin/swift ]; then
  echo "error: Swift 6 is not installed (expected 'swift' on PATH or /opt/swift/usr/bin/swift)" >&2
  exit 1
fi
