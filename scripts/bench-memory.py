#!/usr/bin/env python3
"""The measuring half of scripts/bench-memory.sh (issue 26). Fills the app to the caps through one
server, then starts a fresh one (nothing cached, nothing left over from the writes) and measures
each workload's peak RSS growth (VmHWM after it, less VmRSS before it) in a process of its own.
Not a test: nothing here asserts; the target is printed next to the figure.

bench-memory.py --bin PATH --port N --token T --slug S --log FILE"""
import argparse
import concurrent.futures
import http.client
import json
import os
import subprocess
import time

parser = argparse.ArgumentParser()
parser.add_argument("--bin", required=True)
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--token", required=True)
parser.add_argument("--slug", required=True)
parser.add_argument("--log", required=True)
parser.add_argument("--rounds", type=int, default=3)
parser.add_argument("--only", help="measure only the workload with this label (draft.json, screens list, publish check)")
args = parser.parse_args()

HOST = "127.0.0.1"
API = f"/api/v1/apps/{args.slug}"
MAX_SCREEN_BYTES = 256 * 1024


def call(method, path, body=None, timeout=120):
    c = http.client.HTTPConnection(HOST, args.port, timeout=timeout)
    headers = {"Authorization": f"Bearer {args.token}"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    c.request(method, path, body=data, headers=headers)
    r = c.getresponse()
    payload = r.read()
    c.close()
    return r.status, payload


def status_kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field}")


def serve(wrap=()):
    env = dict(os.environ, HOST=HOST, PORT=str(args.port), LOG_LEVEL="error")
    server = subprocess.Popen([*wrap, args.bin, "serve"], env=env, stdout=open(args.log, "a"), stderr=subprocess.STDOUT)
    started = time.monotonic()
    while time.monotonic() - started < 60:
        try:
            c = http.client.HTTPConnection(HOST, args.port, timeout=1)
            c.request("GET", "/health/ready")
            if c.getresponse().status == 200:
                return server
        except OSError:
            pass
        time.sleep(0.05)
    server.kill()
    raise SystemExit("the server was not ready within 60 s:\n" + open(args.log).read()[-3000:])


def screen_with_blob(name, size):
    count = max(0, (size - 400) // 3)  # PostgreSQL writes each number back as "0, "
    return {"name": name, "family": "FAMILY_1", "ui_components": [
        {"component_type": "list", "cell_styles": ["LIST_1"], "data": {"source": "feed-1"}, "rules": {"item_limit": 6}}],
        "extra": {"blob": [0] * count}}


server = serve()
try:
    status, _ = call("POST", f"{API}/families", {"id": "FAMILY_1", "reference_size": {"width": 320, "height": 568},
                                                 "cell_styles": [{"id": "LIST_1", "columns": 1, "height": 80}]})
    assert status == 201, status
    screens = 0
    while True:
        status, _ = call("POST", f"{API}/screens", screen_with_blob(f"S{screens}", MAX_SCREEN_BYTES - 8192))
        if status != 201:
            break
        screens += 1
finally:
    server.terminate()
    server.wait()
stored = int(subprocess.run(
    ["psql", os.environ["DATABASE_URL"], "-tAc",
     f"SELECT (SELECT sum(body_bytes) FROM screens s JOIN apps a ON a.id = s.app_id WHERE a.slug = '{args.slug}')"
     f" + (SELECT sum(body_bytes) FROM families f JOIN apps a ON a.id = f.app_id WHERE a.slug = '{args.slug}')"],
    capture_output=True, text=True, check=True).stdout.strip())
print(f"app: {screens} screens and one family, {stored / 1024:.0f} KB as stored (the cap is 2048 KB)")


def measure(label, path, target):
    if args.only and args.only != label:
        return
    # BENCH_WRAP runs the measured server under a profiler (e.g. "heaptrack -o /tmp/draft"); its
    # figures are then the profiler's process's, not the server's alone.
    server = serve(os.environ.get("BENCH_WRAP", "").split())
    try:
        before = status_kb(server.pid, "VmRSS")
        sizes = set()
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            for _ in range(args.rounds):
                for status, payload in pool.map(lambda _: call("GET", path), range(4)):
                    assert status == 200, (path, status, payload[:300])
                    sizes.add(len(payload))
        peak = status_kb(server.pid, "VmHWM")
        after = status_kb(server.pid, "VmRSS")
    finally:
        server.terminate()
        server.wait()
    growth = (peak - before) * 1024
    print(f"{label}: 4 clients × {args.rounds} rounds, {max(sizes) / 1024:.0f} KB each; RSS {before / 1024:.0f} MB before, "
          f"peak {peak / 1024:.0f} MB, {after / 1024:.0f} MB after; peak growth {growth / 2**20:.1f} MB = "
          f"{growth / stored:.1f} bytes per stored byte" + (f" (target ≤ {target})" if target else ""))


measure("draft.json", f"{API}/draft.json", 5)
measure("screens list", f"{API}/screens?limit=200", None)
measure("publish check", f"{API}/problems", None)
