"""The pieces of the fault suite (Tests/faults/, run by scripts/fault-tests.sh): the PostgreSQL
cluster the suite stops and starts, `rivers serve` processes, nginx in front of them, HTTP calls
that always have a timeout, load generators, and the ledger of acknowledged writes that is
compared with the database afterwards.

Every wait here has a deadline and every HTTP call a timeout, so that no test can hang; every
process is started in a session of its own (its pid is its process group) and recorded in
$FAULT_DIR/pids/, so that the script's trap can kill it even when pytest itself is killed.
"""
import datetime
import json
import os
import pathlib
import signal
import socket
import subprocess
import threading
import time
import uuid
from dataclasses import dataclass, field as dc_field

import requests

ROOT = pathlib.Path(os.environ.get("RIVERS_ROOT") or pathlib.Path(__file__).resolve().parents[2])
BIN = os.environ.get("RIVERS_BIN", "")
FAULT_DIR = pathlib.Path(os.environ.get("FAULT_DIR", "/nonexistent"))
PG_DIR = os.environ.get("FAULT_PG_DIR", "")
PG_PORT = os.environ.get("FAULT_PG_PORT", "")
DATABASE_URL = os.environ.get("DATABASE_URL", "")
NGINX_BIN = os.environ.get("FAULT_NGINX", "/usr/sbin/nginx")
APP = os.environ.get("RIVERS_APP", "")
TOKEN = os.environ.get("RIVERS_TOKEN", "")
HOST = "127.0.0.1"
PG_BIN = "/usr/lib/postgresql/15/bin"

LOAD_SECONDS = float(os.environ.get("FAULT_LOAD_SECONDS", "30"))
OUTAGE_SECONDS = float(os.environ.get("FAULT_OUTAGE_SECONDS", "5"))
# How fast an API answer must come while the database is down (issue 15: "within 2 s").
OUTAGE_ANSWER = 2.0
# What counts as a hang: a client gives up on any request after this long.
CLIENT_TIMEOUT = 5.0
# How long a process may take to be ready (the database answers) when everything is up.
START_DEADLINE = 30.0

API = f"/api/v1/apps/{APP}"
PUBLIC = f"/rivers/{APP}/rivers.json"
LOG_DIR = FAULT_DIR / "logs"
PID_DIR = FAULT_DIR / "pids"


def uid(n=6):
    return uuid.uuid4().hex[:n].upper()


def free_port():
    s = socket.socket()
    s.bind((HOST, 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_until(predicate, deadline_seconds, interval=0.1):
    """Calls `predicate` until it returns something truthy (returned) or the deadline passes (None)."""
    deadline = time.monotonic() + deadline_seconds
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            return None
        time.sleep(interval)


# MARK: - HTTP


@dataclass
class Answer:
    """One exchange: status (None when there was no answer), headers (lower-case names), body
    (decoded from gzip when it was), when it started and how long it took, and the error seen on the
    wire. `started` is time.monotonic()."""
    method: str
    url: str
    status: object = None
    headers: dict = dc_field(default_factory=dict)
    body: bytes = b""
    started: float = 0.0
    elapsed: float = 0.0
    error: str = ""
    note: str = ""

    @property
    def json(self):
        try:
            return json.loads(self.body)
        except ValueError:
            return None

    def header(self, name):
        return self.headers.get(name.lower())

    @property
    def ok(self):
        return self.status is not None and 200 <= self.status < 300

    def __str__(self):
        text = self.body[:300].decode("utf-8", "replace")
        what = f"{self.status}" if self.status is not None else "no answer"
        extra = f" [{self.note}]" if self.note else ""
        return (f"{self.method} {self.url} -> {what} in {self.elapsed:.2f}s"
                f"{' (' + self.error + ')' if self.error else ''}{extra}: {text}")


def call(method, url, body=None, *, headers=None, session=None, timeout=CLIENT_TIMEOUT, auth=True, note=""):
    """One request, always bounded by `timeout` (connect and read alike)."""
    h = {}
    if auth:
        h["Authorization"] = f"Bearer {TOKEN}"
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        h["Content-Type"] = "application/json"
    h.update(headers or {})
    started = time.monotonic()
    try:
        r = (session or requests).request(method, url, data=data, headers=h, timeout=timeout, allow_redirects=False)
        content = r.content
    except requests.RequestException as error:
        text = str(error)
        kind = ("timeout" if isinstance(error, requests.Timeout)
                else "refused" if "Connection refused" in text else type(error).__name__)
        return Answer(method, url, None, {}, b"", started, time.monotonic() - started, f"{kind}: {text}"[:300], note)
    return Answer(method, url, r.status_code, {k.lower(): v for k, v in r.headers.items()}, content, started,
                  time.monotonic() - started, "", note)


def outage_answer_problems(a):
    """What is wrong with an API answer given while the database may be down: [] when it is a
    success or the 503 the issue asks for (problem+json, type database-unavailable, Retry-After,
    within 2 s; for a write caught at its commit, type write-outcome-unknown)."""
    if a.ok:
        return []
    if a.status is None:
        if a.error.startswith("timeout"):
            return [f"no answer within {CLIENT_TIMEOUT:.0f} s (a hang)"]
        return [f"no answer ({a.error})"]
    wrong = []
    if a.status != 503:
        wrong.append(f"status {a.status}, expected 503")
    ctype = (a.header("content-type") or "").lower()
    if not ctype.startswith("application/problem+json"):
        wrong.append(f"Content-Type {ctype or 'none'!r}, expected application/problem+json")
    body = a.json if isinstance(a.json, dict) else {}
    kind = str(body.get("type", ""))
    # A write whose COMMIT was sent as the database went away may or may not have been saved: it
    # says so with a type of its own (issue 24), never with "nothing changed".
    unknown_outcome = a.method in ("POST", "PUT", "PATCH", "DELETE") and kind.endswith("/problems/write-outcome-unknown")
    if a.status == 503 and not (kind.endswith("/problems/database-unavailable") or unknown_outcome):
        wrong.append(f"type {body.get('type')!r}, expected /problems/database-unavailable")
    retry = a.header("retry-after")
    if not retry or not retry.strip().isdigit():
        wrong.append(f"Retry-After {retry!r}, expected a number of seconds")
    if a.elapsed > OUTAGE_ANSWER:
        wrong.append(f"answered after {a.elapsed:.2f} s (limit {OUTAGE_ANSWER:.0f} s)")
    return wrong


def summarize(answers, limit=6):
    """A few answers, one per line, for assertion messages."""
    lines = [f"    {a}" for a in answers[:limit]]
    if len(answers) > limit:
        lines.append(f"    … and {len(answers) - limit} more")
    return "\n".join(lines)


# MARK: - Processes


def _record_pid(name, pid):
    PID_DIR.mkdir(parents=True, exist_ok=True)
    (PID_DIR / f"{name}.pid").write_text(str(pid))


def _forget_pid(name):
    try:
        (PID_DIR / f"{name}.pid").unlink()
    except OSError:
        pass


def _kill_group(process, sig):
    """Signals the process group we created for `process` (its pid), by id."""
    try:
        os.killpg(process.pid, sig)
    except (ProcessLookupError, PermissionError):
        try:
            process.send_signal(sig)
        except OSError:
            pass


class Rivers:
    """One `rivers serve` on 127.0.0.1:PORT, logging (appended, across restarts) to
    $FAULT_DIR/logs/rivers-PORT.log."""

    def __init__(self, port, public_base_url, label=None):
        self.port = port
        self.label = label or f"rivers-{port}"
        self.url = f"http://{HOST}:{port}"
        self.public_base_url = public_base_url
        self.log_path = LOG_DIR / f"rivers-{port}.log"
        self.process = None
        self.starts = 0

    def env(self):
        env = dict(os.environ)
        env.update(HOST=HOST, PORT=str(self.port), DATABASE_URL=DATABASE_URL, PUBLIC_DIR=str(ROOT / "Public"),
                   PUBLIC_BASE_URL=self.public_base_url, LOG_LEVEL="info",
                   # a crash's backtrace quickly, without holding the port for long
                   SWIFT_BACKTRACE="threads=crashed,registers=none,images=none",
                   # webhook receivers of the suite listen on 127.0.0.1; failed deliveries retried fast
                   WEBHOOK_PRIVATE_NETWORKS="allow", WEBHOOK_RETRY_SECONDS="0.5")
        env.pop("AUTO_MIGRATE", None)
        return env

    def start(self):
        assert self.process is None or self.process.poll() is not None, f"{self.label} is already running"
        LOG_DIR.mkdir(parents=True, exist_ok=True)
        # The port may still be held for a moment by a process just killed.
        wait_until(lambda: port_free(self.port), 10)
        with open(self.log_path, "ab") as log:
            log.write(f"\n----- fault suite: start #{self.starts + 1} at {time.strftime('%H:%M:%S')} -----\n".encode())
            log.flush()
            self.process = subprocess.Popen([BIN, "serve"], cwd=ROOT, env=self.env(), stdin=subprocess.DEVNULL,
                                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.starts += 1
        _record_pid(self.label, self.process.pid)
        return self

    @property
    def pid(self):
        return self.process.pid if self.process else None

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def exit_status(self):
        return None if self.process is None else self.process.poll()

    def ready(self, timeout=2.0):
        """GET /health answers 200 (the process answers and its database too)."""
        return call("GET", self.url + "/health", auth=False, timeout=timeout).status == 200

    def wait_ready(self, deadline=START_DEADLINE):
        """Waits until GET /health answers 200; fails with the end of the log when the process dies
        or is not ready in time."""
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            if not self.alive():
                raise AssertionError(f"{self.label} exited with status {self.exit_status()}:\n{self.log_tail()}")
            if self.ready():
                return
            time.sleep(0.1)
        raise AssertionError(f"{self.label} was not ready (GET /health 200) within {deadline:.0f} s:\n{self.log_tail()}")

    def kill(self, sig=signal.SIGKILL):
        """Sends `sig` to the process (and its group: a crash helper too) and waits for it (10 s)."""
        if self.process is None or self.process.poll() is not None:
            return
        _kill_group(self.process, sig)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            _kill_group(self.process, signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self):
        """SIGTERM, then SIGKILL after 5 s; the process group too."""
        if self.process is not None and self.process.poll() is None:
            _kill_group(self.process, signal.SIGTERM)
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        if self.process is not None:
            _kill_group(self.process, signal.SIGKILL)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        _forget_pid(self.label)

    def log_text(self):
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def log_tail(self, lines=25):
        return "\n".join("    | " + line for line in self.log_text().splitlines()[-lines:])


def port_free(port):
    probe = socket.socket()
    probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        probe.bind((HOST, port))
        return True
    except OSError:
        return False
    finally:
        probe.close()


class Nginx:
    """Debian's nginx in the foreground, with deploy/nginx/rivers.conf as it is except for its paths
    (cache, logs: under the suite's folder) and its `listen` (127.0.0.1 and a free port), and an
    upstream naming the processes, as the header of rivers.conf suggests. Nothing of /etc/nginx
    is read or written."""

    def __init__(self, upstream_ports):
        self.dir = FAULT_DIR / "nginx"
        self.port = free_port()
        self.url = f"http://{HOST}:{self.port}"
        self.upstream_ports = upstream_ports
        self.process = None
        self.access_log = self.dir / "logs" / "access.log"
        self.error_log = self.dir / "logs" / "error.log"

    def write_config(self):
        d = self.dir
        for sub in ("cache", "logs"):
            (d / sub).mkdir(parents=True, exist_ok=True)
        conf = (ROOT / "deploy" / "nginx" / "rivers.conf").read_text()
        conf = conf.replace("/var/cache/nginx/", f"{d}/cache/").replace("/var/log/nginx/", f"{d}/logs/")
        assert "    listen 80;\n" in conf, "deploy/nginx/rivers.conf no longer says `listen 80;`: update Tests/faults/faultlib.py"
        conf = conf.replace("    listen 80;\n", f"    listen {HOST}:{self.port};\n")
        (d / "rivers.conf").write_text(conf)
        servers = "".join(f"    server {HOST}:{p} max_fails=1 fail_timeout=5s;\n" for p in self.upstream_ports)
        (d / "upstream.conf").write_text(f"upstream rivers {{\n{servers}    keepalive 32;\n}}\n")
        # As root, nginx's workers run as nobody: they must be able to write the cache and temp folders.
        user = "user nobody nogroup;\n" if os.getuid() == 0 else ""
        (d / "nginx.conf").write_text(f"""daemon off;
{user}worker_processes 2;
pid {d}/nginx.pid;
error_log {d}/logs/error.log;
events {{ worker_connections 1024; }}
http {{
    client_body_temp_path {d}/body;
    proxy_temp_path {d}/proxy;
    fastcgi_temp_path {d}/fastcgi;
    uwsgi_temp_path {d}/uwsgi;
    scgi_temp_path {d}/scgi;
    include {d}/upstream.conf;
    include {d}/rivers.conf;
}}
""")
        if os.getuid() == 0:
            subprocess.run(["chown", "-R", "nobody:nogroup", str(d / "cache")], check=True, timeout=30)

    def start(self):
        self.write_config()
        d = self.dir
        test = subprocess.run([NGINX_BIN, "-q", "-t", "-p", str(d), "-c", str(d / "nginx.conf"), "-e", str(self.error_log)],
                              capture_output=True, text=True, timeout=30)
        assert test.returncode == 0, f"nginx -t refused the generated configuration:\n{test.stderr}"
        out = open(d / "logs" / "nginx.out", "ab")
        self.process = subprocess.Popen([NGINX_BIN, "-p", str(d), "-c", str(d / "nginx.conf"), "-e", str(self.error_log)],
                                        stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        out.close()
        _record_pid("nginx", self.process.pid)
        ok = wait_until(lambda: self.process.poll() is None and
                        call("GET", self.url + "/health/live", auth=False, timeout=2).status == 200, 20)
        assert ok, f"nginx did not answer on {self.url}: {self.error_text()[-2000:]}"
        return self

    def stop(self):
        if self.process is None:
            return
        if self.process.poll() is None:
            _kill_group(self.process, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                _kill_group(self.process, signal.SIGKILL)
                self.process.wait(timeout=10)
        else:
            # the workers of a master that died would keep its port: the group goes
            _kill_group(self.process, signal.SIGKILL)
        _forget_pid("nginx")

    def error_text(self):
        try:
            return self.error_log.read_text(errors="replace")
        except OSError:
            return ""

    def access_lines(self):
        """The access log (log_format rivers) as dicts: time (epoch seconds, whole), request, status,
        cache, upstream (list), upstream_status (list)."""
        try:
            text = self.access_log.read_text(errors="replace")
        except OSError:
            return []
        entries = []
        for line in text.splitlines():
            try:
                when = datetime.datetime.strptime(line.split("[")[1].split("]")[0], "%d/%b/%Y:%H:%M:%S %z").timestamp()
                request = line.split('"')[1]
                status = int(line.split('"')[2].split()[0])
                cache = line.split(" cache=")[1].split(" upstream=")[0]
                upstream = line.split(" upstream=")[1].split(" upstream_status=")[0]
                ustatus = line.split(" upstream_status=")[1].split(" request_id=")[0]
            except (IndexError, ValueError):
                continue
            entries.append({"time": when, "request": request, "status": status, "cache": cache,
                            "upstream": [u.strip() for u in upstream.split(",")],
                            "upstream_status": [s.strip() for s in ustatus.split(",")]})
        return entries


# MARK: - PostgreSQL


class Postgres:
    """The suite's own cluster (scripts/pg.sh, in $FAULT_DIR/pg): stopped with a fast shutdown and
    started again by the tests."""

    def __init__(self):
        self.dir = PG_DIR
        self.port = PG_PORT
        self.socket = f"{PG_DIR}/socket"

    def stop(self):
        """Fast shutdown (pg_ctl -m fast -w: open sessions are ended, no new connection accepted)."""
        r = subprocess.run([str(ROOT / "scripts" / "pg.sh"), "stop", self.dir], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, f"pg.sh stop failed: {r.stderr}"
        assert not self.answers(), "PostgreSQL still answers after pg.sh stop"

    def start(self):
        env = dict(os.environ, PG_FSYNC="off")
        r = subprocess.run([str(ROOT / "scripts" / "pg.sh"), "start", self.dir, self.port, "rivers"],
                           capture_output=True, text=True, timeout=90, env=env)
        assert r.returncode == 0, f"pg.sh start failed: {r.stdout}{r.stderr}"

    def answers(self):
        r = subprocess.run([f"{PG_BIN}/pg_isready", "-q", "-h", self.socket, "-p", self.port, "-t", "2"],
                           capture_output=True, timeout=10)
        return r.returncode == 0

    def query(self, sql):
        """Rows of a query (psql -At, fields separated by a unit separator)."""
        r = subprocess.run([f"{PG_BIN}/psql", "-X", "-q", "-At", "-F", "\x1f", "-v", "ON_ERROR_STOP=1",
                            "-h", self.socket, "-p", self.port, "-U", "postgres", "-d", "rivers", "-c", sql],
                           capture_output=True, text=True, timeout=30)
        assert r.returncode == 0, f"psql failed on {sql!r}: {r.stderr}"
        return [line.split("\x1f") for line in r.stdout.splitlines() if line]


# MARK: - Seeding, through the API


def family_body(family_id="FAMILY_1"):
    return {
        "id": family_id, "name": "Phones",
        "reference_size": {"width": 320, "height": 568},
        "insets": {"top": 10, "left": 10, "bottom": 10, "right": 10},
        "interitem_spacing": 10, "line_spacing": 10,
        "cell_styles": [
            {"id": "LIST_1", "columns": 1, "height": 80},
            {"id": "GRID_1", "columns": 2, "aspect_ratio": 1.7778},
        ],
    }


def screen_body(name, item_limit=1):
    return {"name": name, "family": "FAMILY_1", "ui_components": components(item_limit)}


def components(item_limit):
    """The one component of a test screen; its item_limit is written with the name, so that a
    half-applied write would show as a name and a limit that disagree."""
    return [{"component_type": "list", "cell_styles": ["LIST_1"], "rules": {"item_limit": item_limit},
             "data": {"source": "3119", "type": "APPLICASTER_COLLECTION"}}]


def ok(a, what):
    assert a.ok, f"{what} failed: {a}"
    return a.json


def create_screens(base, prefix, n):
    """n screens named `PREFIX i #0` with item_limit 0, each with a WriteLedger (label `PREFIX i`)."""
    ledgers = []
    for i in range(n):
        label = f"{prefix} {i}"
        body = ok(call("POST", f"{base}{API}/screens", screen_body(f"{label} #0", 0)), f"creating screen {label}")
        ledgers.append(WriteLedger(body["id"], body["revision"], label))
    return ledgers


# MARK: - Load


class Load:
    """Worker threads that run until `stop()` (or their own deadline), each appending what it saw
    to its own list; exceptions in a worker are recorded as failures, never lost."""

    def __init__(self):
        self.stopping = threading.Event()
        self.threads = []
        self.crashes = []

    def add(self, name, loop, *args):
        def run():
            try:
                loop(self.stopping, *args)
            except Exception as error:  # a bug in the test itself: reported, not swallowed
                self.crashes.append(f"{name}: {type(error).__name__}: {error}")
        t = threading.Thread(target=run, name=name, daemon=True)
        self.threads.append(t)
        return t

    def start(self):
        for t in self.threads:
            t.start()

    def stop(self, deadline=CLIENT_TIMEOUT + 5):
        self.stopping.set()
        end = time.monotonic() + deadline
        for t in self.threads:
            t.join(max(0.1, end - time.monotonic()))
        stuck = [t.name for t in self.threads if t.is_alive()]
        assert not stuck, f"load threads did not stop within {deadline} s: {stuck}"
        assert not self.crashes, "load threads failed: " + "; ".join(self.crashes)


def public_reader(stopping, urls, check, results, *, unique_host=False, pause=0.005, host_prefix="h"):
    """GETs the public document until stopped, from each of `urls` in turn (a string: always that
    one), alternating gzip and identity. With `unique_host`, each request names a Host of its own:
    nginx's cache key holds the host, so such a request is never answered from the cache and always
    reaches a process. `check(answer)` says what is wrong with an answer ("" when nothing); each
    answer goes to `results`, with `note` set when it failed."""
    urls = [urls] if isinstance(urls, str) else list(urls)
    session = requests.Session()
    n = 0
    while not stopping.is_set():
        n += 1
        headers = {"Accept-Encoding": "gzip" if n % 2 else "identity"}
        if unique_host:
            headers["Host"] = f"{host_prefix}{n}-{uid(8).lower()}.faults.test"
        a = call("GET", urls[n % len(urls)], headers=headers, session=session, auth=False)
        a.note = "not 200" if a.status != 200 else check(a)
        results.append(a)
        time.sleep(pause)
    session.close()


def same_bytes(expected):
    """A check for public_reader: the body is exactly `expected` (after gzip decoding)."""
    return lambda a: "" if a.body == expected else "unexpected body"


def a_published_document(a):
    """A check for public_reader: a JSON array (rivers.json) with its version number."""
    if not (a.header("x-rivers-version") or "").isdigit():
        return "no X-Rivers-Version"
    return "" if isinstance(a.json, list) else "the body is not a rivers.json array"


def repeat(stopping, request, results, pause=0.1):
    """Sends `request()` (an Answer) until stopped, `pause` seconds apart."""
    while not stopping.is_set():
        results.append(request())
        time.sleep(pause)


class WriteLedger:
    """One writer's history on one screen: what it sent (name, item_limit), what was acknowledged
    (2xx, with the revision), and what is uncertain (no answer, or an error: it may or may not have
    been applied). Checked against the database by `check_against_database`."""

    def __init__(self, screen_id, revision, label):
        self.screen_id = screen_id
        self.revision = revision  # what the writer believes the current revision is
        self.label = label
        self.seq = 0
        self.sent = {}            # name -> seq
        self.acked = []           # (seq, name, revision)
        self.uncertain = []       # seqs whose outcome is unknown
        self.answers = []

    def name(self, seq):
        return f"{self.label} #{seq}"


def patch_writer(stopping, base_urls, ledger, *, pause=0.0, timeout=CLIENT_TIMEOUT, deadline=None):
    """PATCHes one screen with If-Match until stopped: each write sets the name and the component's
    item_limit to the same sequence number. After a write whose outcome is unknown (no answer, a
    5xx) or a 412, it reads the screen again to learn its revision. `base_urls` is a list: each
    write goes to the next (one URL: always nginx)."""
    session = requests.Session()
    i = 0
    while not stopping.is_set() and (deadline is None or time.monotonic() < deadline):
        base = base_urls[i % len(base_urls)]
        i += 1
        ledger.seq += 1
        seq = ledger.seq
        name = ledger.name(seq)
        ledger.sent[name] = seq
        a = call("PATCH", f"{base}{API}/screens/{ledger.screen_id}", {"name": name, "ui_components": components(seq)},
                 headers={"If-Match": f'"{ledger.revision}"'}, session=session, timeout=timeout)
        a.note = f"write {seq} with If-Match {ledger.revision}"
        ledger.answers.append(a)
        if a.ok:
            body = a.json or {}
            assert body.get("name") == name, f"a PATCH was acknowledged with another name: {a}"
            ledger.revision = body["revision"]
            ledger.acked.append((seq, name, body["revision"]))
        else:
            # No answer, or a 5xx: the write may have been applied (a 4xx says it was not, and so
            # does a refused connection).
            refused = a.status is None and a.error.startswith("refused")
            if (a.status is None and not refused) or (a.status is not None and a.status >= 500):
                ledger.uncertain.append(seq)
            resync(ledger, base_urls, session, stopping)
        if pause:
            time.sleep(pause)
    session.close()


def resync(ledger, base_urls, session, stopping):
    """Reads the screen's current revision (retrying on any process for up to 20 s, or until
    stopped), so the next write has a good If-Match."""
    end = time.monotonic() + 20
    i = 0
    while time.monotonic() < end:
        a = call("GET", f"{base_urls[i % len(base_urls)]}{API}/screens/{ledger.screen_id}", session=session)
        i += 1
        if a.ok:
            ledger.revision = a.json["revision"]
            return True
        if stopping.is_set():
            return False
        time.sleep(0.2)
    return False


def check_against_database(pg, ledgers):
    """Compares each writer's acknowledged writes with the database. For every screen: the last
    acknowledged write is there, or a write sent after it (whose answer was lost) replaced it; the
    revision moved by exactly one per applied write (acknowledged revisions never go backwards,
    and never skip more than the writes in doubt between them); the name and item_limit written
    together are found together (nothing half-written). Returns a list of problems."""
    if not ledgers:
        return []
    ids = ", ".join(f"'{l.screen_id}'" for l in ledgers)
    rows = pg.query(f"SELECT id, revision, body->>'name', body->'ui_components'->0->'rules'->>'item_limit' "
                    f"FROM screens WHERE id IN ({ids})")
    found = {r[0]: (int(r[1]), r[2], r[3]) for r in rows}
    problems = []
    for l in ledgers:
        if l.screen_id not in found:
            problems.append(f"{l.label}: screen {l.screen_id} is not in the database")
            continue
        revision, name, limit = found[l.screen_id]
        if name not in l.sent and not name.endswith("#0"):
            problems.append(f"{l.label}: the database holds name {name!r}, which this writer never sent")
            continue
        seq = l.sent.get(name, 0)
        if str(limit) != str(seq):
            problems.append(f"{l.label}: half-written: name {name!r} (write {seq}) with item_limit {limit}")
        previous = None
        for aseq, aname, arev in l.acked:
            if previous is not None:
                pseq, prev = previous
                doubt = sum(1 for u in l.uncertain if pseq < u < aseq)
                if not (prev + 1 <= arev <= prev + 1 + doubt):
                    problems.append(f"{l.label}: write {aseq} was acknowledged at revision {arev} after write {pseq} "
                                    f"at {prev}, with {doubt} write(s) in doubt between them")
            previous = (aseq, arev)
        if not l.acked:
            continue
        last_seq, last_name, last_rev = l.acked[-1]
        if seq == last_seq:
            if revision != last_rev:
                problems.append(f"{l.label}: the last acknowledged write {last_seq} is there, but at revision "
                                f"{revision} instead of {last_rev}")
        elif seq > last_seq and seq in l.uncertain:
            if revision <= last_rev:
                problems.append(f"{l.label}: write {seq} (answer lost) is there at revision {revision}, not after "
                                f"the acknowledged revision {last_rev}")
        elif seq < last_seq:
            problems.append(f"{l.label}: LOST: write {last_seq} ({last_name!r}, revision {last_rev}) was acknowledged, "
                            f"but the database holds {name!r} at revision {revision}")
        else:
            problems.append(f"{l.label}: the database holds write {seq} ({name!r}), which was refused with a 4xx")
    return problems
