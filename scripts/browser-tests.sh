#!/usr/bin/env bash
# The editor's browser tests: Selenium driving headless Chromium against a real server and database.
#
#   DATABASE_URL=postgres://… scripts/browser-tests.sh [pytest arguments]
#
# Needs DATABASE_URL (a running, throwaway PostgreSQL: the tests add apps to it) and the built
# server at $(swift build --show-bin-path)/rivers, or RIVERS_BIN. Installs what is missing:
# chromium and chromium-driver (Debian packages), and selenium + pytest in the venv
# .venv-browser/. Starts the server on a free port with a fresh app and token (made with the CLI),
# runs pytest on Tests/browser/, and stops the server on exit. Screenshots of the main views go to
# screenshots/ on every run.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
name=browser-tests
. "$root/scripts/test-lib.sh"
: "${DATABASE_URL:?DATABASE_URL must point at a running throwaway PostgreSQL}"

# Chromium and its driver, from Debian.
if ! command -v chromium >/dev/null 2>&1 || [ ! -x /usr/bin/chromedriver ]; then
  echo "browser-tests: installing chromium and chromium-driver" >&2
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
fi

# Selenium and pytest, in a venv of our own.
venv="$root/.venv-browser"
# (zxing-cpp and Pillow read the QR codes the editor draws, as a phone's camera would.)
ensure_venv "$venv" 'import selenium, pytest, zxingcpp, PIL' selenium pytest zxing-cpp Pillow

find_server_binary

log=$(mktemp /tmp/rivers-browser-server.XXXXXX)
# The CLI's chatter goes to the log, shown only when something fails.
LOG_LEVEL=warning "$RIVERS_BIN" migrate >"$log" 2>&1 || { cat "$log" >&2; rm -f "$log"; exit 1; }
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
slug="browser-$(date +%s)-$RANDOM"
token=$(LOG_LEVEL=warning "$RIVERS_BIN" app create "$slug" --quiet 2>>"$log") || { cat "$log" >&2; rm -f "$log"; exit 1; }
url="http://127.0.0.1:$port"

# (Webhook receivers of the tests listen on 127.0.0.1; failed deliveries are retried fast.)
HOST=127.0.0.1 PORT=$port PUBLIC_DIR="$root/Public" PUBLIC_BASE_URL="$url" LOG_LEVEL=warning \
  WEBHOOK_PRIVATE_NETWORKS=allow WEBHOOK_RETRY_SECONDS=0.5 \
  "$RIVERS_BIN" serve --migrate >>"$log" 2>&1 &
server=$!
cleanup() {
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  rm -f "$log"
}
trap cleanup EXIT INT TERM

python3 "$root/scripts/wait-for-server.py" "$url" "$server" "$log"

RIVERS_SCREENSHOTS="${RIVERS_SCREENSHOTS:-$root/screenshots}"
mkdir -p "$RIVERS_SCREENSHOTS"
rm -f "$RIVERS_SCREENSHOTS"/failed-*.png  # left by an earlier failing run
export RIVERS_URL="$url" RIVERS_TOKEN="$token" RIVERS_APP="$slug" RIVERS_BIN DATABASE_URL
export RIVERS_SCREENSHOTS PYTHONDONTWRITEBYTECODE=1
status=0
"$venv/bin/python" -m pytest "$root/Tests/browser" -p no:cacheprovider -q -rs --tb=short "$@" || status=$?
if [ "$status" != 0 ]; then
  echo "browser-tests: server log (last lines):" >&2
  tail -n 40 "$log" >&2 || true
fi
exit "$status"
