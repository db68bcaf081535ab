"""Fixtures of the fault suite (run by scripts/fault-tests.sh, which passes: RIVERS_BIN, DATABASE_URL
of the suite's own PostgreSQL with FAULT_PG_DIR and FAULT_PG_PORT, FAULT_DIR (a temporary folder),
FAULT_NGINX, RIVERS_APP and RIVERS_TOKEN (an app made with the CLI), FAULT_LOAD_SECONDS).

`cluster` (once for the session): three `rivers serve` processes on 127.0.0.1 behind nginx, and the
app seeded through the API (a family, a home screen) and published. Before each test, `healthy`
puts the cluster back as it was (PostgreSQL up, the three processes ready, restarted when a test
left one dead or stuck), and after each test it stops the extra processes the test started.
A test that runs past its time limit is interrupted (SIGALRM), so the suite cannot hang.
"""
import os
import signal
import time

import pytest

import faultlib as F

if not F.BIN or not F.DATABASE_URL or not os.environ.get("FAULT_DIR"):
    pytest.skip("run the fault suite with scripts/fault-tests.sh (make test-faults)", allow_module_level=True)

TEST_TIME_LIMIT = int(os.environ.get("FAULT_TEST_TIME_LIMIT", "150"))


class Cluster:
    def __init__(self):
        self.pg = F.Postgres()
        ports = [F.free_port() for _ in range(3)]
        self.nginx = F.Nginx(ports)
        self.rivers = [F.Rivers(p, self.nginx.url, label=f"rivers-{i + 1}") for i, p in enumerate(ports)]
        self.extra = []
        self.home = None

    @property
    def urls(self):
        return [r.url for r in self.rivers]

    def spawn(self, label):
        """Another process on a new port (stopped after the test)."""
        r = F.Rivers(F.free_port(), self.nginx.url, label=label)
        self.extra.append(r)
        return r

    def stop_extra(self):
        for r in self.extra:
            r.stop()
        self.extra = []

    def current_document(self, base=None):
        a = F.call("GET", (base or self.rivers[0].url) + F.PUBLIC, auth=False, headers={"Accept-Encoding": "identity"})
        assert a.status == 200, f"the public document is not served: {a}"
        return a

    def restore(self):
        """PostgreSQL answering, and the three processes ready; a process that is dead, or not
        ready within 10 s, is killed and started again."""
        if not self.pg.answers():
            self.pg.start()
        for r in self.rivers:
            if r.alive() and F.wait_until(r.ready, 10, 0.2):
                continue
            r.kill()
            r.start()
            r.wait_ready()

    def stop(self):
        self.stop_extra()
        for r in self.rivers:
            r.stop()
        self.nginx.stop()


@pytest.fixture(scope="session")
def cluster():
    c = Cluster()
    try:
        assert c.pg.answers(), "the suite's PostgreSQL does not answer (scripts/fault-tests.sh starts it)"
        for r in c.rivers:
            r.start()
        for r in c.rivers:
            r.wait_ready()
        c.nginx.start()
        base = c.rivers[0].url
        F.ok(F.call("POST", f"{base}{F.API}/families", F.family_body()), "creating FAMILY_1")
        home = F.ok(F.call("POST", f"{base}{F.API}/screens", F.screen_body("Home", 6)), "creating the home screen")
        c.home = home["id"]
        F.ok(F.call("POST", f"{base}{F.API}/publish", {"note": "fault suite"}), "publishing")
        yield c
    finally:
        c.stop()


class TimeLimitExceeded(Exception):
    pass


@pytest.fixture(autouse=True)
def time_limit(request):
    """Interrupts a test that runs longer than FAULT_TEST_TIME_LIMIT seconds (150)."""
    def expired(signum, frame):
        raise TimeLimitExceeded(f"{request.node.name} ran past its {TEST_TIME_LIMIT} s limit")
    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(TEST_TIME_LIMIT)
    started = time.monotonic()
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)
    print(f"\n{request.node.name}: {time.monotonic() - started:.1f} s", end="")


@pytest.fixture(autouse=True)
def healthy(cluster, request):
    """Before each test: the cluster as the session set it up. After: extra processes stopped."""
    cluster.restore()
    yield cluster
    cluster.stop_extra()
