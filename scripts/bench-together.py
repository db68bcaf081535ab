"""Live streams benchmark (issue 28; not a test): STREAMS open streams of one app spread over the
servers given, SAVES saves through the first one; for each save, how long from sending it until every stream
has its event, and each server's memory per stream.

    python3 scripts/bench-together.py TOKEN APP URL [URL ...]   (STREAMS=200 SAVES=20)

Prints p50/p99/max of delivery (all streams × all saves), the saves' own round trip, and RSS per stream (each server's RSS
with its streams open, less before, over its streams). Everything on this machine's loopback."""
import asyncio
import json
import os
import statistics
import sys
import time
import urllib.request

TOKEN, APP, URLS = sys.argv[1], sys.argv[2], sys.argv[3:]
STREAMS = int(os.environ.get("STREAMS", "200"))
SAVES = int(os.environ.get("SAVES", "20"))


def call(method, url, body=None):
    request = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(), method=method)
    request.add_header("Authorization", f"Bearer {TOKEN}")
    if body is not None:
        request.add_header("Content-Type", "application/json")
    if method == "PATCH":
        request.add_header("If-Match", "*")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"null")


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Stream:
    """One person's stream (each with a token of its own: a caller may hold 8 streams of an app)."""

    def __init__(self, token):
        self.token = token
        self.arrived = {}  # resource revision -> monotonic time
        self.ready = asyncio.Event()

    async def run(self, url):
        host, port = url.split("//")[1].split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write((f"GET /api/v1/apps/{APP}/events HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {self.token}\r\n"
                      "Accept: text/event-stream\r\n\r\n").encode())
        await writer.drain()
        buffer = b""
        while True:
            chunk = await reader.read(65536)
            if not chunk:
                return
            now = time.monotonic()
            buffer += chunk
            if b"connected" in buffer:
                self.ready.set()
            while b"\n\n" in buffer:
                block, buffer = buffer.split(b"\n\n", 1)
                for line in block.split(b"\n"):
                    if line.startswith(b"data: {") and b'"kind":"screen"' in line:
                        data = json.loads(line[6:])
                        self.arrived.setdefault(data.get("revision"), now)


async def main():
    pids = [int(p) for p in os.environ.get("SERVER_PIDS", "").split()] if os.environ.get("SERVER_PIDS") else []
    before = [rss_kib(p) for p in pids]
    api = f"{URLS[0]}/api/v1/apps/{APP}"
    screen = call("POST", f"{api}/screens", {"name": "Bench", "family": "FAMILY_1"})
    tokens = [call("POST", f"{api}/tokens", {"name": f"reader {i}", "role": "viewer"})["token"] for i in range(STREAMS)]
    streams = [Stream(token) for token in tokens]
    tasks = [asyncio.create_task(s.run(URLS[i % len(URLS)])) for i, s in enumerate(streams)]
    await asyncio.wait_for(asyncio.gather(*(s.ready.wait() for s in streams)), 60)
    await asyncio.sleep(1)
    after = [rss_kib(p) for p in pids]
    latencies, round_trips = [], []
    loop = asyncio.get_running_loop()
    for n in range(SAVES):
        # Measured from when the save is sent: its event is sent at commit, often before the
        # save's own answer reaches the client, so the save's round trip is counted in.
        sent_at = time.monotonic()
        saved = await loop.run_in_executor(None, call, "PATCH", f"{api}/screens/{screen['id']}", {"name": f"Bench {n}"})
        done_at = time.monotonic()
        round_trips.append((done_at - sent_at) * 1000)
        revision = saved["revision"]
        deadline = done_at + 10
        while time.monotonic() < deadline and any(revision not in s.arrived for s in streams):
            await asyncio.sleep(0.005)
        missing = sum(revision not in s.arrived for s in streams)
        if missing:
            print(f"save {n}: {missing} streams did not get it within 10 s", file=sys.stderr)
        latencies += [(s.arrived[revision] - sent_at) * 1000 for s in streams if revision in s.arrived]
        await asyncio.sleep(0.2)
    for t in tasks:
        t.cancel()
    latencies.sort()
    p = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))]
    print(f"== live streams: {STREAMS} streams on {len(URLS)} processes, {SAVES} saves through the first")
    print(f"from sending the save to its event on every stream (ms): p50 {p(0.5):.1f}  p99 {p(0.99):.1f}  max {latencies[-1]:.1f}  (target p99 < 250)")
    print(f"the save's own round trip, for scale (ms): median {statistics.median(round_trips):.1f}")
    print(f"deliveries: {len(latencies)} of {STREAMS * SAVES}")
    for i, (b, a) in enumerate(zip(before, after)):
        per = (a - b) * 1024 / max(1, len(streams[i::len(URLS)]))
        print(f"server {i + 1}: RSS {b / 1024:.1f} MiB → {a / 1024:.1f} MiB with {len(streams[i::len(URLS)])} streams: {per / 1024:.1f} KiB a stream")


asyncio.run(main())
