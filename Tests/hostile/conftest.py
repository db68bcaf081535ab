"""Fixtures and helpers of the hostile-client tests (run by scripts/hostile-tests.sh).

The script starts a real server with short timeouts and passes: RIVERS_URL (its address),
RIVERS_TOKEN and RIVERS_APP (a fresh app's token and slug), RIVERS_PID (the server process),
RIVERS_BIN and DATABASE_URL (to run the CLI), RIVERS_PIDFILE and RIVERS_LOG (to restart a server
that died), and the limits the server was given (HEADER_TIMEOUT, BODY_TIMEOUT, IDLE_TIMEOUT,
MAX_CONNECTIONS).

Every error answer is held to one contract (see `expect_problem`): a 4xx in
`application/problem+json` with `type`, `title`, `status`, `detail` (and the `field` the case
names), answered within a second, with an `X-Request-Id`, under 64 KB, at most 100 `errors`.
After every test, `server_survives` checks that the server is alive, answers, and stays under
300 MB; when it does not, the test fails and the server is restarted for the tests after it.
"""
import json
import os
import pathlib
import select
import signal
import socket
import subprocess
import time
import uuid
from dataclasses import dataclass, field as dc_field

import pytest
import requests

BASE_URL = os.environ.get("RIVERS_URL", "").rstrip("/")
if not BASE_URL:
    pytest.skip("RIVERS_URL is not set: run these tests with scripts/hostile-tests.sh", allow_module_level=True)

TOKEN = os.environ["RIVERS_TOKEN"]
APP = os.environ["RIVERS_APP"]
BIN = os.environ.get("RIVERS_BIN", "")
ROOT = pathlib.Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
PORT = int(BASE_URL.rsplit(":", 1)[1])
assert BASE_URL.startswith(f"http://{HOST}:"), "hostile tests only ever talk to 127.0.0.1"

HEADER_TIMEOUT = float(os.environ.get("HEADER_TIMEOUT", "2"))
BODY_TIMEOUT = float(os.environ.get("BODY_TIMEOUT", "2"))
IDLE_TIMEOUT = float(os.environ.get("IDLE_TIMEOUT", "5"))
MAX_CONNECTIONS = int(os.environ.get("MAX_CONNECTIONS", "64"))

API = f"/api/v1/apps/{APP}"
MAX_ERROR_BODY = 64 * 1024
MAX_RSS_KB = 300 * 1024
FAST = 1.0  # seconds an error answer may take
MANIFEST_FIXTURE = ROOT / "Tests" / "Fixtures" / "zapp" / "manifest_qb_parent_lock_screen_ios_for_quickbrick.json"


def uid(n=6):
    """A fresh upper-case suffix, so ids never collide between runs on the same database."""
    return uuid.uuid4().hex[:n].upper()


# MARK: - Answers


@dataclass
class Answer:
    """One HTTP exchange: status (None when the connection ended without an answer), headers
    (lower-case names), body bytes, wall time in seconds, and what went wrong on the wire."""
    method: str
    path: str
    status: object = None
    headers: dict = dc_field(default_factory=dict)
    body: bytes = b""
    elapsed: float = 0.0
    error: str = ""

    @property
    def json(self):
        try:
            return json.loads(self.body)
        except ValueError:
            return None

    def header(self, name):
        return self.headers.get(name.lower())

    def __str__(self):
        text = self.body[:600].decode("utf-8", "replace")
        return (f"{self.method} {self.path} -> {self.status} in {self.elapsed:.2f}s "
                f"({len(self.body)} bytes{', ' + self.error if self.error else ''}): {text}")


def url_of(path):
    """`families` → the app's API; `/x` → the server root."""
    if path.startswith("http"):
        return path
    return BASE_URL + (path if path.startswith("/") else f"{API}/{path}")


def call(method, path, body=None, *, raw=None, headers=None, auth=True, token=None, timeout=8.0):
    """One request through `requests` on a fresh connection (Connection: close, so that the
    server's short idle timeout never bites a pooled connection). `body` is sent as JSON (Python's
    encoder: NUL and control characters are escaped, never raw); `raw` is sent byte for byte."""
    h = {"Connection": "close"}
    if auth:
        h["Authorization"] = f"Bearer {token or TOKEN}"
    data = None
    if raw is not None:
        data = raw if isinstance(raw, bytes) else raw.encode()
        h["Content-Type"] = "application/json"
    elif body is not None:
        data = json.dumps(body).encode()
        h["Content-Type"] = "application/json"
    h.update(headers or {})
    started = time.monotonic()
    try:
        r = requests.request(method, url_of(path), data=data, headers=h, timeout=timeout, allow_redirects=False)
        content = r.content
    except requests.RequestException as error:
        return Answer(method, path, None, {}, b"", time.monotonic() - started, f"{type(error).__name__}: {error}")
    return Answer(method, path, r.status_code, {k.lower(): v for k, v in r.headers.items()}, content,
                  time.monotonic() - started)


def ok(method, path, body=None, **kw):
    """A call that must succeed (set-up steps): returns the parsed JSON."""
    a = call(method, path, body, **kw)
    assert a.status is not None and 200 <= a.status < 300, f"set-up step failed: {a}"
    return a.json


# MARK: - Raw HTTP, for what polite clients never send


def recv_some(sock, deadline):
    """Bytes from the socket; b'' when the server closed (a reset counts as closed); None when the
    deadline passed with nothing to read."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        return None
    readable, _, _ = select.select([sock], [], [], remaining)
    if not readable:
        return None
    try:
        return sock.recv(65536)
    except (ConnectionResetError, BrokenPipeError):
        return b""


def read_response(sock, deadline, buffered=b""):
    """Reads one response. Returns (status, headers, body, closed): status None when the connection
    closed (or the deadline passed) before a whole head arrived; `closed` tells whether the server
    closed the connection while we read."""
    buf = buffered
    while b"\r\n\r\n" not in buf:
        chunk = recv_some(sock, deadline)
        if chunk is None:
            return None, {}, buf, False
        if not chunk:
            return None, {}, buf, True
        buf += chunk
    head, rest = buf.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    try:
        status = int(lines[0].split()[1])
    except (IndexError, ValueError):
        return None, {}, buf, False
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        key = name.strip().lower()
        headers[key] = (headers[key] + ", " if key in headers else "") + value.strip()
    closed = False

    def more():
        nonlocal closed, rest
        chunk = recv_some(sock, deadline)
        if not chunk:
            closed = chunk == b""
            return False
        rest += chunk
        return True

    if "content-length" in headers:
        n = int(headers["content-length"].split(",")[0])
        while len(rest) < n and more():
            pass
        body = rest[:n]
    elif "chunked" in headers.get("transfer-encoding", "").lower():
        body = b""
        while True:
            while b"\r\n" not in rest and more():
                pass
            if b"\r\n" not in rest:
                break
            size_line, rest = rest.split(b"\r\n", 1)
            size = int(size_line.split(b";")[0] or b"0", 16)
            while len(rest) < size + 2 and more():
                pass
            body += rest[:size]
            rest = rest[size + 2:]
            if size == 0:
                break
    elif status in (204, 304) or status < 200:
        body = b""
    else:
        while more():
            pass
        body = rest
    return status, headers, body, closed


def read_responses(sock, methods, deadline):
    """Reads one response per entry of `methods` (a HEAD's has no body) from a connection that may
    carry them back to back: [(status, headers, body)], and whether the server closed it."""
    buf, out, closed = b"", [], False

    def fill():
        nonlocal buf, closed
        chunk = recv_some(sock, deadline)
        if not chunk:
            closed = chunk == b""
            return False
        buf += chunk
        return True

    for method in methods:
        while b"\r\n\r\n" not in buf:
            if not fill():
                return out, closed
        head, buf = buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers.setdefault(name.strip().lower(), []).append(value.strip())
        status = int(lines[0].split()[1])
        n = 0 if method == "HEAD" or status == 304 else int(headers.get("content-length", ["0"])[0])
        while len(buf) < n:
            if not fill():
                return out, closed
        out.append((status, headers, buf[:n]))
        buf = buf[n:]
    return out, closed


def document_request(method, path, *extra, close=False, auth=False):
    """A request head as bytes: Host, the extra header lines, and Authorization or Connection: close
    when asked for."""
    lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}:{PORT}", *extra]
    if auth:
        lines.append(f"Authorization: Bearer {TOKEN}")
    if close:
        lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def connect(timeout=3.0):
    s = socket.create_connection((HOST, PORT), timeout=timeout)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def head_lines(method, path, extra=(), *, auth=True, close=True):
    """The head of a request as bytes, with Host (and Authorization, Connection: close)."""
    lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}:{PORT}"]
    if auth:
        lines.append(f"Authorization: Bearer {TOKEN}")
    if close:
        lines.append("Connection: close")
    lines.extend(extra)
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def raw_http(data, *, timeout=5.0, method="RAW", path=""):
    """Sends `data` byte for byte on a new connection and reads one response (or the close)."""
    started = time.monotonic()
    deadline = started + timeout
    error = ""
    try:
        sock = connect(timeout)
    except OSError as e:
        return Answer(method, path, None, {}, b"", time.monotonic() - started, f"connect failed: {e}")
    early = b""
    with sock:
        try:
            sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError) as e:
            error = f"send interrupted: {type(e).__name__}"
        except socket.timeout:
            error = "send timed out"
        status, headers, body, closed = read_response(sock, deadline, early)
    elapsed = time.monotonic() - started
    if status is None:
        error = error or ("closed without an answer" if closed else f"no answer within {timeout}s")
    return Answer(method, path, status, headers, body, elapsed, error)


# MARK: - The contract of an error answer

ANY = object()


def expect_problem(a, status, field=ANY, within=FAST):
    """Checks every rule of an error answer at once and reports all the rules broken, so that a
    failure says everything that is wrong. `status` is a code or a tuple of acceptable codes;
    `field` (when given) is the JSON pointer the answer must name. Returns the parsed body."""
    assert a.status is not None, f"no answer: {a}"
    wanted = status if isinstance(status, tuple) else (status,)
    broken = []
    if a.status not in wanted:
        broken.append(f"status {a.status}, expected {' or '.join(map(str, wanted))}")
    if not 400 <= a.status < 500:
        broken.append(f"status {a.status} is not a 4xx")
    ctype = a.header("content-type") or ""
    if not ctype.lower().startswith("application/problem+json"):
        broken.append(f"Content-Type is {ctype!r}, not application/problem+json")
    body = a.json
    if not isinstance(body, dict):
        broken.append("the body is not a JSON object")
        body = {}
    for key in ("type", "title", "status", "detail"):
        if key not in body:
            broken.append(f"no {key!r} in the body")
    if "status" in body and body["status"] != a.status:
        broken.append(f"body status {body['status']} differs from the HTTP status {a.status}")
    if field is not ANY and body.get("field") != field:
        broken.append(f"field is {body.get('field')!r}, expected {field!r}")
    if isinstance(body.get("errors"), list) and len(body["errors"]) > 100:
        broken.append(f"{len(body['errors'])} entries in errors (at most 100)")
    if a.elapsed >= within:
        broken.append(f"answered in {a.elapsed:.2f}s (limit {within}s)")
    if len(a.body) >= MAX_ERROR_BODY:
        broken.append(f"the body is {len(a.body)} bytes (limit {MAX_ERROR_BODY})")
    if not a.header("x-request-id"):
        broken.append("no X-Request-Id header")
    assert not broken, "; ".join(broken) + f"\n  answer: {a}"
    return body


# MARK: - The server process: alive, answering, small; restarted when it is not


class Server:
    def __init__(self):
        self.pidfile = os.environ.get("RIVERS_PIDFILE", "")
        self.log = os.environ.get("RIVERS_LOG", "")

    @property
    def pid(self):
        if self.pidfile:
            try:
                return int(pathlib.Path(self.pidfile).read_text().strip())
            except (OSError, ValueError):
                pass
        return int(os.environ["RIVERS_PID"])

    def state(self):
        """The server process's state letter (R, S, Z…), or None when it is gone."""
        return self.state_of(self.pid)

    def rss_kb(self):
        try:
            for line in pathlib.Path(f"/proc/{self.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        except OSError:
            return None
        return None

    def children(self, pid):
        """Child processes of `pid` (when the server crashes, Swift's swift-backtrace is one)."""
        found = []
        for task in pathlib.Path(f"/proc/{pid}/task").glob("*/children"):
            try:
                found += [int(c) for c in task.read_text().split()]
            except OSError:
                pass
        return found

    @staticmethod
    def command(pid):
        try:
            return pathlib.Path(f"/proc/{pid}/comm").read_text().strip()
        except OSError:
            return ""

    def backtracers(self):
        return [c for c in self.children(self.pid) if self.command(c).startswith("swift-backtrace")]

    def problems(self):
        """What is wrong with the server now: [] when it is alive, answers 200 and is small."""
        try:
            os.kill(self.pid, 0)
        except OSError:
            return ["the server process is gone"]
        if self.state() in (None, "Z", "X"):
            return ["the server process died"]
        if self.backtracers():
            return ["the server crashed (swift-backtrace is writing its backtrace to the server log)"]
        issues = []
        a = call("GET", "/api/openapi.json", auth=False, timeout=5)
        if a.status != 200:
            issues.append(f"GET /api/openapi.json answered {a.status} {a.error}".strip())
        rss = self.rss_kb()
        if rss is not None and rss >= MAX_RSS_KB:
            issues.append(f"the server's RSS is {rss // 1024} MB (limit {MAX_RSS_KB // 1024} MB)")
        if self.backtracers():
            issues.append("the server crashed (swift-backtrace is writing its backtrace to the server log)")
        return issues

    def gone(self, pid):
        try:
            os.kill(pid, 0)
        except OSError:
            return True
        return self.command(pid) == "" or self.state_of(pid) in (None, "Z", "X")

    @staticmethod
    def state_of(pid):
        try:
            for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("State:"):
                    return line.split()[1]
        except OSError:
            return None
        return None

    @staticmethod
    def port_free():
        probe = socket.socket()
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((HOST, PORT))
            return True
        except OSError:
            return False
        finally:
            probe.close()

    def restart(self):
        """Stops the server under test (by its pid) and starts it again with the same settings.
        A crashing server is left to finish its backtrace (it goes to the server log, and
        swift-backtrace holds the listening socket until it is done); a hung or bloated one is
        killed."""
        if not (self.pidfile and BIN):
            return False
        old = self.pid
        helpers = self.backtracers()
        deadline = time.monotonic() + 60
        while helpers and not self.gone(old) and time.monotonic() < deadline:
            time.sleep(0.2)
        for pid in [old] + helpers:
            if not self.gone(pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        while not self.port_free() and time.monotonic() < deadline:
            time.sleep(0.2)
        log = open(self.log or os.devnull, "ab")
        process = subprocess.Popen([BIN, "serve", "--migrate"], stdout=log, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, env=dict(os.environ), start_new_session=True)
        pathlib.Path(self.pidfile).write_text(str(process.pid))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if process.poll() is not None:
                return False
            if call("GET", "/api/openapi.json", auth=False, timeout=2).status == 200:
                return True
            time.sleep(0.2)
        return False


SERVER = Server()


@pytest.fixture(autouse=True)
def server_survives(request):
    """After every test: the server process is alive, GET /api/openapi.json answers 200, and its
    resident memory is under 300 MB. Otherwise the test fails (at teardown) and the server is
    restarted, so the tests after it still say something."""
    yield
    issues = SERVER.problems()
    if issues:
        restarted = SERVER.restart()
        pytest.fail(f"after {request.node.name}: " + "; ".join(issues)
                    + ("" if restarted else " (and the server could not be restarted)"), pytrace=False)


# MARK: - Bodies the tests start from


def family_body(family_id, styles=None, **extra):
    body = {
        "id": family_id, "name": f"Phones {family_id}",
        "reference_size": {"width": 320, "height": 568},
        "insets": {"top": 10, "left": 10, "bottom": 10, "right": 10},
        "interitem_spacing": 10, "line_spacing": 10,
        "cell_styles": styles if styles is not None else [
            {"id": "LIST_1", "columns": 1, "height": 80},
            {"id": "GRID_1", "columns": 2, "aspect_ratio": 1.7778},
        ],
    }
    body.update(extra)
    return body


@pytest.fixture(scope="session")
def family():
    """FAMILY_1 of the README's tour (LIST_1, GRID_1) in the test app; its id."""
    a = call("POST", "families", family_body("FAMILY_1"))
    assert a.status in (201, 409), f"could not create FAMILY_1: {a}"
    assert call("GET", "families/FAMILY_1").status == 200
    return "FAMILY_1"


@pytest.fixture(scope="session")
def manifest():
    """A valid Zapp screen-plugin manifest (Tests/Fixtures/zapp/, parent lock screen)."""
    return json.loads(MANIFEST_FIXTURE.read_text())


def run_cli(*args, timeout=60):
    """Runs the rivers CLI against the test database."""
    env = dict(os.environ, LOG_LEVEL="warning")
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=timeout, env=env)
