#!/usr/bin/env python3
"""The measuring half of scripts/bench-apps.sh (issue 13): starts a fresh `rivers serve` over a
database that already holds APPS published apps (`seed`, `app-2` … `app-APPS`) and prints the
figures in one run. Not a test: nothing here asserts; targets are printed next to the figures.

bench-apps.py --bin PATH --port N --apps N --log FILE"""
import argparse
import http.client
import os
import random
import statistics
import subprocess
import threading
import time

parser = argparse.ArgumentParser()
parser.add_argument("--bin", required=True)
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--apps", type=int, required=True)
parser.add_argument("--log", required=True)
parser.add_argument("--seconds", type=float, default=5.0)
args = parser.parse_args()

HOST = "127.0.0.1"
slugs = ["seed"] + [f"app-{n}" for n in range(2, args.apps + 1)]


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def get(conn, slug):
    conn.request("GET", f"/rivers/{slug}/rivers.json", headers={"Accept-Encoding": "gzip"})
    response = conn.getresponse()
    response.read()
    if response.status != 200:
        raise RuntimeError(f"{slug}: {response.status}")


env = dict(os.environ, HOST=HOST, PORT=str(args.port), LOG_LEVEL="error")
started = time.monotonic()
server = subprocess.Popen([args.bin, "serve"], env=env, stdout=open(args.log, "a"), stderr=subprocess.STDOUT)
try:
    ready = None
    while time.monotonic() - started < 60:
        try:
            c = http.client.HTTPConnection(HOST, args.port, timeout=1)
            c.request("GET", "/health/ready")
            if c.getresponse().status == 200:
                ready = time.monotonic() - started
                break
        except OSError:
            pass
        time.sleep(0.02)
    if ready is None:
        raise SystemExit("the server was not ready within 60 s:\n" + open(args.log).read()[-3000:])
    rss_ready = rss_mb(server.pid)

    # A cold app's first request: apps nobody has asked for, one at a time on a kept-alive connection.
    conn = http.client.HTTPConnection(HOST, args.port, timeout=10)
    get(conn, "seed")  # the connection is open and the hot app is hot
    cold = random.Random(13).sample(slugs[1:], min(200, len(slugs) - 1))
    cold_ms = []
    for slug in cold:
        t = time.perf_counter()
        get(conn, slug)
        cold_ms.append((time.perf_counter() - t) * 1000)
    warm_ms = []
    for slug in cold[:50]:
        t = time.perf_counter()
        get(conn, slug)
        warm_ms.append((time.perf_counter() - t) * 1000)
    cold_ms.sort()

    # A hot app's throughput alone, then while another client reads every app once.
    def hot_rate(seconds, stop_early=None):
        done = [0]

        def worker():
            c = http.client.HTTPConnection(HOST, args.port, timeout=10)
            end = time.monotonic() + seconds
            while time.monotonic() < end and not (stop_early and stop_early.is_set()):
                get(c, "seed")
                done[0] += 1

        threads = [threading.Thread(target=worker) for _ in range(4)]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return done[0] / (time.monotonic() - t0)

    # The same load twice: four clients on the hot app plus a fifth that reads, first, the hot app
    # over and over (the baseline: equal client load), then every app once (cold misses).
    def with_fifth_client(read):
        done = threading.Event()
        count = [0]

        def fifth():
            c = http.client.HTTPConnection(HOST, args.port, timeout=30)
            for slug in read:
                if done.is_set():
                    break
                get(c, slug)
                count[0] += 1
            done.set()

        thread = threading.Thread(target=fifth)
        t0 = time.monotonic()
        thread.start()
        rate = hot_rate(args.seconds, stop_early=done)
        done.set()
        thread.join()
        return rate, count[0], time.monotonic() - t0

    alone, _, _ = with_fifth_client(["seed"] * 10_000_000)
    during, scanned, scan_seconds = with_fifth_client(slugs)
    scanned = [scanned]
    # Every app once: what the cache's byte budget keeps memory to.
    c = http.client.HTTPConnection(HOST, args.port, timeout=30)
    for slug in slugs:
        get(c, slug)
    rss_after = rss_mb(server.pid)

    pct = lambda p: cold_ms[min(len(cold_ms) - 1, int(p / 100 * len(cold_ms)))]
    print(f"== {args.apps} published apps, one release `rivers serve` (Python clients on the same machine)")
    print(f"ready (GET /health/ready 200) {ready:.2f} s after start (target < 2 s)")
    print(f"RSS when ready {rss_ready:.0f} MB; after all {len(slugs)} apps were fetched once {rss_after:.0f} MB (target < 300 MB)")
    print(f"a cold app's first request: median {statistics.median(cold_ms):.1f} ms, p99 {pct(99):.1f} ms over {len(cold_ms)} apps "
          f"(target < 20 ms); the same apps again: median {statistics.median(warm_ms):.2f} ms")
    print(f"hot app, 4 clients: {alone:.0f} r/s while a fifth client reads the hot app too, {during:.0f} r/s while it reads "
          f"cold apps instead ({scanned[0]} apps in {scan_seconds:.1f} s): {during / alone:.2f}× (target: unaffected, ≈ 1)")
finally:
    server.terminate()
    server.wait(timeout=20)
