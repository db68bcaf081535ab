"""Issue 15, failover 5: a process started while PostgreSQL is down waits and retries with a clear
log line naming the address it tried, then serves once PostgreSQL is up: no crash loop (it stays
the same process), no hang for ever.

Meanwhile its liveness (GET /health/live) is 200 throughout, its readiness (GET /health) is 503,
always answered within 2 s; once PostgreSQL is up, /health turns 200 and the process serves the
published document and the API.
"""
import os
import re
import threading
import time

import faultlib as F

# How long the process may take to answer /health/live and to log the address it tried.
LISTEN_WITHIN = float(os.environ.get("FAULT_START_WITHIN", "10"))
# How long PostgreSQL stays down once the process is waiting.
WAITING = 4.0
# How long the process may take to be ready once PostgreSQL is back.
READY_WITHIN = 15.0


def test_a_process_started_without_the_database_waits_for_it(cluster):
    socket_dir = cluster.pg.socket
    cluster.pg.stop()
    late = cluster.spawn("rivers-nodb")
    live, ready = [], []
    stop = threading.Event()

    def poll():
        while not stop.is_set():
            live.append(F.call("GET", late.url + "/health/live", auth=False, timeout=2))
            ready.append(F.call("GET", late.url + "/health", auth=False, timeout=3))
            time.sleep(0.2)

    poller = threading.Thread(target=poll, daemon=True)
    started = time.monotonic()
    late.start()
    poller.start()
    problems = []
    try:
        # It answers /health/live while the database is down, and says where it tried.
        answering = F.wait_until(lambda: any(a.status == 200 for a in live) or not late.alive(), LISTEN_WITHIN, 0.1)
        if not late.alive():
            raise AssertionError(f"a process started while PostgreSQL was down exited with status {late.exit_status()} "
                                 f"after {time.monotonic() - started:.1f} s (it should wait and retry):\n{late.log_tail()}")
        if not answering or not any(a.status == 200 for a in live):
            raise AssertionError(f"a process started while PostgreSQL was down did not answer GET /health/live within "
                                 f"{LISTEN_WITHIN:.0f} s (it should listen while it waits for the database); "
                                 f"it answered: {live[-1] if live else 'nothing'}\n{late.log_tail()}")
        named = F.wait_until(lambda: address_lines(late.log_text(), socket_dir), LISTEN_WITHIN, 0.2)
        if not named:
            problems.append(f"no log line names the database address it tried ({socket_dir}) within "
                            f"{LISTEN_WITHIN:.0f} s:\n{late.log_tail()}")
        else:
            print("its log says:", named[0])
        pid = late.pid
        time.sleep(WAITING)
        if not late.alive() or late.pid != pid:
            raise AssertionError(f"the waiting process exited (status {late.exit_status()}) while PostgreSQL was down:\n"
                                 f"{late.log_tail()}")
        # what /health said once the process listened (before that, connections are refused)
        listening = next(a.started for a in live if a.status is not None)
        down_ready = [a for a in ready if a.started >= listening]
        cluster.pg.start()
        up_at = time.monotonic()
        became_ready = F.wait_until(lambda: any(a.status == 200 and a.started >= up_at for a in list(ready))
                                    or not late.alive(), READY_WITHIN, 0.1)
        ready_after = time.monotonic() - up_at
        if not late.alive():
            raise AssertionError(f"the process exited (status {late.exit_status()}) once PostgreSQL was back:\n{late.log_tail()}")
    finally:
        stop.set()
        poller.join(10)

    if not became_ready or not any(a.status == 200 and a.started >= up_at for a in ready):
        problems.append(f"GET /health was not 200 within {READY_WITHIN:.0f} s of PostgreSQL's start "
                        f"(last: {ready[-1] if ready else 'none'})\n{late.log_tail()}")
    else:
        print(f"ready {ready_after:.2f} s after PostgreSQL was back")
    not_503 = [a for a in down_ready if a.status != 503 or a.elapsed > F.OUTAGE_ANSWER]
    if not_503 or not down_ready:
        problems.append(f"GET /health while PostgreSQL was down: {len(not_503)} of {len(down_ready)} answers were not a "
                        f"503 within 2 s:\n{F.summarize(not_503, 4)}")
    first = next(i for i, a in enumerate(live) if a.status == 200)
    dead = [a for a in live[first:] if a.status != 200 or a.elapsed > F.OUTAGE_ANSWER]
    if dead:
        problems.append(f"GET /health/live was not a quick 200 {len(dead)} times once the process answered:\n"
                        f"{F.summarize(dead, 4)}")

    # Once ready, it serves what was published, and the API.
    doc = F.call("GET", late.url + F.PUBLIC, auth=False)
    if doc.status != 200 or not isinstance(doc.json, list):
        problems.append(f"the public document once ready: {doc}")
    api = F.call("GET", f"{late.url}{F.API}/screens/{cluster.home}")
    if not api.ok:
        problems.append(f"the API once ready: {api}")
    assert not problems, "\n  ".join(["a process started while PostgreSQL was down:"] + problems)


def address_lines(log, socket_dir):
    """Log lines naming the socket folder (or the socket in it); JSON logs may escape `/` as `\\/`."""
    text = log.replace("\\/", "/")
    return [line for line in text.splitlines() if socket_dir in line and re.search(r"(?i)database|postgres", line)]
