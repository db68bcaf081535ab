"""Issue 24, finding 7: a write answered "nothing changed" must not have changed anything. With
PostgreSQL frozen (SIGSTOP) under a stream of If-Match PATCHes, one PATCH used to be answered
`503 /problems/database-unavailable` although it was committed when the database woke up. Now a
write given up on before its commit never commits, and one given up on after its COMMIT was sent
answers `/problems/write-outcome-unknown`.

Every PATCH carries an Idempotency-Key; the key is marked carried out in the write's own
transaction, so the table of keys says, for each answer, whether its change was saved. And the
reference nginx config keeps /metrics (with or without a trailing slash) from the internet.
"""
import os
import pathlib
import signal
import threading
import time
import uuid

import faultlib as F


def postgres_processes():
    """The postmaster of the suite's cluster and every process it started."""
    postmaster = int(pathlib.Path(F.PG_DIR, "data", "postmaster.pid").read_text().split()[0])
    found, queue = [postmaster], [postmaster]
    while queue:
        pid = queue.pop()
        for task in pathlib.Path(f"/proc/{pid}/task").glob("*/children"):
            try:
                children = [int(c) for c in task.read_text().split()]
            except OSError:
                continue
            found += children
            queue += children
    return found


def signal_all(pids, sig):
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def test_a_frozen_database_never_makes_a_saved_write_look_unsaved(cluster):
    base = cluster.rivers[0].url
    screen = f"{base}{F.API}/screens/{cluster.home}"
    answers, keys = [], []
    stop = threading.Event()

    def writer():
        while not stop.is_set():
            current = F.call("GET", screen, timeout=5)
            if current.status != 200:
                time.sleep(0.1)
                continue
            key = uuid.uuid4().hex
            a = F.call("PATCH", screen, {"name": f"Frozen {F.uid(6)}"}, timeout=15,
                       headers={"If-Match": current.header("etag"), "Idempotency-Key": key})
            answers.append(a)
            keys.append(key)

    thread = threading.Thread(target=writer)
    thread.start()
    frozen = []
    try:
        for _ in range(3):
            time.sleep(0.7)
            frozen = postgres_processes()
            signal_all(frozen, signal.SIGSTOP)
            time.sleep(2.5)
            signal_all(frozen, signal.SIGCONT)
            frozen = []
        time.sleep(1.5)
    finally:
        if frozen:
            signal_all(frozen, signal.SIGCONT)
        stop.set()
        thread.join(timeout=60)
    assert F.wait_until(lambda: cluster.rivers[0].ready(), 20, 0.2), "the server did not come back"

    committed = {key: flag == "t" for key, flag in cluster.pg.query("SELECT key, committed FROM idempotency_keys")}
    problems = []
    types = {}
    for key, a in zip(keys, answers):
        kind = a.json.get("type") if a.status and a.status >= 400 and isinstance(a.json, dict) else a.status
        types[kind] = types.get(kind, 0) + 1
        if a.status == 200 and not committed.get(key):
            problems.append(f"200 but not saved: {a}")
        if kind == "/problems/database-unavailable" and committed.get(key):
            problems.append(f"answered 'nothing changed' but saved: {a}")
        if a.status not in (200, 412, 503, None):
            problems.append(f"unexpected answer: {a}")
    assert not problems, "\n".join(problems[:10])
    assert types.get(200, 0) >= 3, f"too few writes went through: {types}"
    assert types.get("/problems/database-unavailable", 0) + types.get("/problems/write-outcome-unknown", 0) + types.get(None, 0) >= 1, \
        f"no write met the frozen database: {types}"


def test_metrics_are_not_reached_through_nginx(cluster):
    for path in ["/metrics", "/metrics/", "/metrics?x=1", "/metrics/../metrics", "/metricsx"]:
        a = F.call("GET", cluster.nginx.url + path, auth=False, timeout=5)
        assert a.status == 404, f"{path}: {a}"
