# Shared by the test scripts (sourced, not run): root for installs, a venv with Python packages,
# and the server binary. Each function names its caller's script in messages ($name).

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo "$@"
  else echo "$name: need root (or sudo) to run: $*" >&2; return 1
  fi
}

# ensure_venv DIR CHECK PACKAGE…: DIR is a venv in which `python -c CHECK` succeeds, installing
# PACKAGE… (from PyPI) when it does not.
ensure_venv() {
  local dir=$1 check=$2
  shift 2
  if [ -x "$dir/bin/python" ] && "$dir/bin/python" -c "$check" >/dev/null 2>&1; then return 0; fi
  echo "$name: setting up $dir ($*)" >&2
  if [ ! -x "$dir/bin/python" ] && ! python3 -m venv "$dir" >/dev/null 2>&1; then
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
    rm -rf "$dir"
    python3 -m venv "$dir"
  fi
  "$dir/bin/pip" install -q --disable-pip-version-check "$@"
}

# Sets RIVERS_BIN to the built server (unless given), or stops with a message.
find_server_binary() {
  if [ -z "${RIVERS_BIN:-}" ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
    RIVERS_BIN="$(swift build --show-bin-path)/rivers"
  fi
  if [ ! -x "$RIVERS_BIN" ]; then
    echo "$name: no server binary at $RIVERS_BIN; run 'swift build' first or set RIVERS_BIN" >&2
    exit 1
  fi
}
