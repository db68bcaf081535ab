"""The HTTP layer under attack, on raw sockets: slow clients (slowloris), idle and excess
connections, header floods, odd methods, static file paths with NUL bytes and double slashes, and
the headers every answer must carry. A closed connection is an acceptable answer to a slow or
flooding client; every wait here is bounded."""
import socket
import time

import pytest

from conftest import (
    SERVER, API, BODY_TIMEOUT, HEADER_TIMEOUT, HOST, IDLE_TIMEOUT, MAX_CONNECTIONS, PORT, call, connect,
    expect_problem, head_lines, raw_http, read_response, recv_some,
)

SLACK = 1.0  # what the server may take beyond a timeout before the connection is closed
IDLE_CONNECTIONS = 100


def wait_for_close(sock, deadline):
    """Reads until the server closes the connection (True), or the deadline passes (False). A
    408 answer before the close is accepted; any other answer is a failure."""
    buffered = b""
    while True:
        chunk = recv_some(sock, deadline)
        if chunk is None:
            return False, buffered
        if chunk == b"":
            return True, buffered
        buffered += chunk
        if buffered.startswith(b"HTTP/1.1 ") and not buffered.startswith(b"HTTP/1.1 408"):
            return False, buffered


# MARK: 7. Slow clients


@pytest.mark.parametrize("path", ["/api/openapi.json", "/rivers/any-app/rivers.json"])
def test_headers_dripped_slowly_are_cut_off_after_the_header_timeout(path):
    """(a) Slowloris: a request line, then one header line every 1.5 s. The whole head must arrive
    within HEADER_TIMEOUT (2 s), however steadily bytes trickle: the connection is closed (or
    answered 408 then closed) by HEADER_TIMEOUT + 1 s. The same for a public document's path,
    whose heads are read ahead of the HTTP decoder."""
    start = time.monotonic()
    limit = HEADER_TIMEOUT + SLACK
    with connect() as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\n".encode())
        n, closed, seen = 0, False, b""
        give_up = start + limit + 3
        while time.monotonic() < give_up:
            closed, more = wait_for_close(sock, min(give_up, time.monotonic() + 1.5))
            seen += more
            if closed or seen.startswith(b"HTTP/") and not seen.startswith(b"HTTP/1.1 408"):
                break
            try:
                sock.sendall(f"X-Drip-{n}: {n}\r\n".encode())
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
            n += 1
        took = time.monotonic() - start
    assert not seen or seen.startswith(b"HTTP/1.1 408"), f"answered {seen[:80]!r} instead of closing"
    assert closed, f"the connection was still open after {took:.1f}s of dripped headers"
    assert took <= limit + 0.5, f"closed after {took:.1f}s (HEADER_TIMEOUT {HEADER_TIMEOUT}s)"


def test_half_a_request_line_is_cut_off():
    """(b) Half a request line, then silence: closed within HEADER_TIMEOUT + 1 s."""
    start = time.monotonic()
    with connect() as sock:
        sock.sendall(b"GET /api/open")
        closed, seen = wait_for_close(sock, start + HEADER_TIMEOUT + SLACK + 3)
        took = time.monotonic() - start
    assert closed, f"still open after {took:.1f}s: {seen[:80]!r}"
    assert took <= HEADER_TIMEOUT + SLACK + 0.5, f"closed only after {took:.1f}s"


def test_a_silent_connection_is_cut_off():
    """A connection that never sends a byte does not hold a slot for long: closed within
    max(HEADER_TIMEOUT, IDLE_TIMEOUT) + 1 s."""
    limit = max(HEADER_TIMEOUT, IDLE_TIMEOUT) + SLACK
    start = time.monotonic()
    with connect() as sock:
        closed, seen = wait_for_close(sock, start + limit + 2)
        took = time.monotonic() - start
    assert not seen or seen.startswith(b"HTTP/1.1 408"), f"answered {seen[:80]!r} instead of closing"
    assert closed, f"still open after {took:.1f}s"
    assert took <= limit + 0.5, f"closed only after {took:.1f}s"


def test_a_body_that_stops_arriving_is_cut_off():
    """(c) A POST announcing 100 bytes of body that sends 10 and stops: closed (or 408) within
    BODY_TIMEOUT + 1 s."""
    head = head_lines("POST", f"{API}/families", ["Content-Type: application/json", "Content-Length: 100"], close=False)
    start = time.monotonic()
    with connect() as sock:
        sock.sendall(head + b'{"id": "FA')
        closed, seen = wait_for_close(sock, start + BODY_TIMEOUT + SLACK + 3)
        took = time.monotonic() - start
    assert not seen or seen.startswith(b"HTTP/1.1 408"), f"answered {seen[:120]!r} instead of 408 or closing"
    assert closed, f"still open after {took:.1f}s waiting for the rest of the body"
    assert took <= BODY_TIMEOUT + SLACK + 0.5, f"closed only after {took:.1f}s"


def test_an_idle_keep_alive_connection_is_closed_after_the_idle_timeout():
    """(d) After one complete request on a keep-alive connection, a client that says nothing more
    is disconnected within IDLE_TIMEOUT + 1 s."""
    with connect() as sock:
        sock.sendall(head_lines("GET", "/api/v1/devices", close=False))
        status, headers, body, closed = read_response(sock, time.monotonic() + 5)
        assert status == 200 and not closed, f"the first request failed: {status} {body[:200]!r}"
        start = time.monotonic()
        closed, seen = wait_for_close(sock, start + IDLE_TIMEOUT + SLACK + 3)
        took = time.monotonic() - start
    assert closed, f"the idle connection was still open after {took:.1f}s"
    assert took <= IDLE_TIMEOUT + SLACK + 0.5, f"closed only after {took:.1f}s (IDLE_TIMEOUT {IDLE_TIMEOUT}s)"


def test_more_connections_than_allowed_neither_hang_nor_kill_the_server():
    """(e) 100 idle connections against MAX_CONNECTIONS=64: a normal request on a new connection
    either succeeds or is refused (an error, a close or a 503) within HEADER_TIMEOUT + 1 s — it
    never hangs; once the 100 are closed, requests succeed again at once."""
    assert IDLE_CONNECTIONS > MAX_CONNECTIONS
    idle, refused = [], 0
    try:
        for _ in range(IDLE_CONNECTIONS):
            try:
                idle.append(socket.create_connection((HOST, PORT), timeout=2))
            except OSError:
                refused += 1
        a = raw_http(head_lines("GET", "/api/openapi.json", auth=False), timeout=HEADER_TIMEOUT + SLACK + 3,
                     method="GET", path="/api/openapi.json (with 100 idle connections)")
        assert a.status in (200, 503, None), f"unexpected answer: {a}"
        assert a.elapsed <= HEADER_TIMEOUT + SLACK, f"the request took {a.elapsed:.1f}s: {a}"
    finally:
        for s in idle:
            s.close()
    time.sleep(0.3)
    for _ in range(3):
        after = call("GET", "/api/openapi.json", auth=False, timeout=5)
        assert after.status == 200 and after.elapsed < 1.0, f"after closing the idle connections: {after}"


# MARK: 8. Header floods


def test_1000_headers_are_refused_or_cut_off():
    """1,000 header lines: a 431 or 400, or a closed connection, within a second."""
    extra = [f"X-Flood-{i}: {i}" for i in range(1000)]
    a = raw_http(head_lines("GET", "/api/openapi.json", extra, auth=False), timeout=3, method="GET",
                 path="/api/openapi.json (1,000 headers)")
    assert a.status in (400, 431, None), f"the flood was served: {a}"
    assert a.elapsed < 1.0, f"took {a.elapsed:.2f}s: {a}"


def test_a_100kb_header_is_refused_or_cut_off():
    """One header of 100 KB: a 431 or 400, or a closed connection, within a second."""
    a = raw_http(head_lines("GET", "/api/openapi.json", ["X-Big: " + "a" * 100_000], auth=False), timeout=3,
                 method="GET", path="/api/openapi.json (100 KB header)")
    assert a.status in (400, 431, None), f"the huge header was served: {a}"
    assert a.elapsed < 1.0, f"took {a.elapsed:.2f}s: {a}"


# MARK: 15. Methods


def test_trace_is_405_with_allow():
    """TRACE on a route that exists is 405 problem+json with an Allow header naming the methods
    the route takes (not 404, which would say the route does not exist)."""
    a = call("TRACE", "families")
    expect_problem(a, 405)
    allow = a.header("allow") or ""
    methods = {m.strip().upper() for m in allow.split(",")}
    assert {"GET", "POST"} <= methods, f"Allow is {allow!r}"
    assert "TRACE" not in methods


# MARK: 10. Static files


@pytest.mark.parametrize("path", ["/index.html%00.js", "/js/app.js%00.html", "/index.html%00", "/%00"])
def test_nul_in_a_static_path_is_never_served(path):
    """A NUL (%00) in a static file path is a 400 or 404, never a file served under another type."""
    a = raw_http(head_lines("GET", path, auth=False), method="GET", path=path)
    assert a.status in (400, 404), f"{path} answered {a}"


@pytest.mark.parametrize("path", ["//js", "///js", "//js/", "//example.com", "/%2F%2Fexample.com"])
def test_double_slash_paths_never_redirect_off_site(path):
    """`//js` and friends must not redirect to a Location starting with `//` (which a browser reads
    as another host): an open redirect."""
    a = raw_http(head_lines("GET", path, auth=False), method="GET", path=path)
    assert a.status is not None, f"no answer: {a}"
    location = a.header("location") or ""
    assert not location.startswith("//") and not location.startswith("/\\"), f"{path} redirects to {location!r}"
    assert a.status < 500, f"{path} answered {a}"


@pytest.mark.parametrize("path", ["/", "/index.html"])
def test_the_editor_page_carries_security_headers(path):
    """The editor's page: X-Content-Type-Options: nosniff, a Content-Security-Policy with
    frame-ancestors, and X-Frame-Options (no framing by other sites: clickjacking)."""
    a = call("GET", path, auth=False)
    assert a.status == 200, f"{path}: {a}"
    broken = []
    if (a.header("x-content-type-options") or "").lower() != "nosniff":
        broken.append(f"X-Content-Type-Options is {a.header('x-content-type-options')!r}")
    if "frame-ancestors" not in (a.header("content-security-policy") or ""):
        broken.append(f"Content-Security-Policy is {a.header('content-security-policy')!r}")
    if not a.header("x-frame-options"):
        broken.append("no X-Frame-Options")
    assert not broken, "; ".join(broken)


# MARK: X-Request-Id on every answer


@pytest.mark.parametrize("method, path, auth", [
    ("GET", "/", False),
    ("GET", "/js/app.js", False),
    ("GET", "/api/openapi.json", False),
    ("GET", "families", True),
    ("GET", "families", False),
    ("GET", "families/NO_SUCH_FAMILY", True),
    ("GET", "/no/such/page", False),
    ("GET", "/rivers/no-such-app/rivers.json", False),
])
def test_every_answer_carries_a_request_id(method, path, auth):
    """Successes and failures alike (static files, the API, 401, 404, public documents) carry an
    X-Request-Id header, so that a report can be matched with the server's log."""
    a = call(method, path, auth=auth)
    assert a.status is not None, f"no answer: {a}"
    assert a.header("x-request-id"), f"no X-Request-Id on {method} {path} ({a.status})"


def test_connections_run_on_the_event_loops_configured():
    """EVENT_LOOP_THREADS (3 here) is the number of threads of the group that serves HTTP
    connections (NIO names them NIO-ELT-…; the shared group the database client uses is apart)."""
    import os
    import pathlib
    wanted = int(os.environ.get("EVENT_LOOP_THREADS", "0"))
    assert wanted, "hostile-tests.sh sets EVENT_LOOP_THREADS"
    assert call("GET", "/health/live", auth=False).status == 200
    names = [p.read_text().strip() for p in pathlib.Path(f"/proc/{SERVER.pid}/task").glob("*/comm")]
    loops = [n for n in names if n.startswith("NIO-ELT-")]
    assert len(loops) == wanted, f"threads: {sorted(names)}"
