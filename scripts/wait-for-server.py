#!/usr/bin/env python3
"""Waits (30 s at most) until a `rivers serve` just started is ready (GET /health answers 200: the
database answers and the schema is checked): wait-for-server.py URL PID LOG.
Exits 1 with the end of its log when it dies or is not ready in time. Used by the test scripts."""
import os
import sys
import time
import urllib.request

url, pid, log = sys.argv[1], int(sys.argv[2]), sys.argv[3]
deadline = time.time() + 30
while time.time() < deadline:
    try:
        with urllib.request.urlopen(url + "/health", timeout=2) as r:
            if r.status == 200:
                sys.exit(0)
    except Exception:
        pass
    try:
        os.kill(pid, 0)
    except OSError:
        break
    time.sleep(0.1)
sys.stderr.write("the server did not start:\n" + open(log).read()[-4000:])
sys.exit(1)
