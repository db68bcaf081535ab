#!/usr/bin/env bash
# make run: a private database under .data/, migrated, a demo app on first run, then the server.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
export PATH="/opt/swift/usr/bin:$PATH"
port=${RIVERS_PG_PORT:-54329}
scripts/pg.sh start .data/pg "$port" rivers
export DATABASE_URL=${DATABASE_URL:-$(scripts/pg.sh url .data/pg "$port" rivers)}
swift build --product rivers
bin=$(swift build --show-bin-path)/rivers
"$bin" migrate
if [ ! -f .data/demo-app ]; then
  token=$("$bin" app create demo --name "Demo app" --quiet)
  echo demo > .data/demo-app
  echo
  echo "Created the app 'demo'. Its API token (shown only now, keep it):"
  echo "  $token"
  echo
fi
if [ ! -f .data/demo-admin ]; then
  # The demo administrator: the link sets its password (usable once, for 7 days).
  "$bin" user create admin@example.com --name "Demo admin" --admin
  echo admin@example.com > .data/demo-admin
  echo "(Sign in as admin@example.com once the password is set; 'rivers user reset-password admin@example.com' makes a new link.)"
  echo
fi
echo "Rivers at http://${HOST:-127.0.0.1}:${PORT:-8080}  (make stop stops the database)"
exec "$bin" serve
