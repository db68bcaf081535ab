"""Public URLs take slugs only: a slug may not look like an app id (a UUID), and a published
document is never served under its app's id, which would make app ids guessable addresses."""
import gzip as gzip_module
import json
import re
import socket
import time
import uuid

import pytest

from conftest import (
    HEADER_TIMEOUT, HOST, IDLE_TIMEOUT, PORT, SERVER, call, connect, document_request as request, expect_problem, family_body,
    head_lines, raw_http, read_responses, recv_some, run_cli,
)


@pytest.fixture(scope="module")
def published_app():
    """A second app, made with the CLI, with one published version: (slug, id)."""
    slug = f"hostile-public-{uuid.uuid4().hex[:8]}"
    made = run_cli("app", "create", slug, "--quiet")
    assert made.returncode == 0, f"rivers app create {slug} failed: {made.stderr}"
    token = made.stdout.strip().splitlines()[-1]
    apps = call("GET", "/api/v1/apps", token=token)
    assert apps.status == 200, f"GET /api/v1/apps with the new token: {apps}"
    app_id = apps.json["items"][0]["id"]
    base = f"/api/v1/apps/{slug}"
    for method, path, body in [
        ("POST", f"{base}/families", family_body("FAMILY_1")),
        ("POST", f"{base}/screens", {"name": "Home", "family": "FAMILY_1", "ui_components": []}),
        ("POST", f"{base}/publish", {"note": "first"}),
    ]:
        a = call(method, path, body, token=token)
        assert a.status in (200, 201), f"set-up step failed: {a}"
    return slug, app_id


def test_a_uuid_shaped_slug_is_refused_by_the_cli():
    """`rivers app create <a UUID>` fails: a slug that looks like an id would make /rivers/{x}
    ambiguous. (A normal slug made the same way succeeds, so the failure is about the slug.)"""
    control = run_cli("app", "create", f"hostile-slug-{uuid.uuid4().hex[:8]}", "--quiet")
    assert control.returncode == 0, f"the CLI cannot create any app: {control.stderr}"
    for text in (str(uuid.uuid4()), str(uuid.uuid4())):
        made = run_cli("app", "create", text, "--quiet")
        assert made.returncode != 0, f"rivers app create {text} succeeded (printed {made.stdout.strip()[:12]}…)"


def test_public_documents_are_served_by_slug_only(published_app):
    """GET /rivers/{slug}/rivers.json serves the document; the same URLs with the app's id (current
    and version 1, lower or upper case) are 404 problem+json."""
    slug, app_id = published_app
    current = call("GET", f"/rivers/{slug}/rivers.json", auth=False)
    assert current.status == 200, f"the document is not served by slug: {current}"
    paths = (f"/rivers/{app_id}/rivers.json", f"/rivers/{app_id}/v1/rivers.json",
             f"/rivers/{app_id.upper()}/rivers.json", f"/rivers/{app_id.upper()}/v1/rivers.json")
    answers = [call("GET", path, auth=False) for path in paths]
    served = [f"{a.path} answered {a.status}" for a in answers if a.status != 404]
    assert not served, "served by the app's id: " + "; ".join(served)
    for a in answers:
        expect_problem(a, 404)


# MARK: The documents' own HTTP handler (issue 13)
# Published documents in memory are answered by a channel handler ahead of the framework. These
# check what it must keep from the framework: order, keep-alive and close, HEAD, 304, timeouts.

SLACK = 1.0


def test_pipelined_requests_are_answered_in_order(published_app):
    """Requests sent back to back on one connection — the document, a HEAD and a 304 (answered
    ahead of the framework), then an API read and a 404 (answered by it), then the document again
    — come back in the order sent, each whole and with its own request id."""
    slug, _ = published_app
    doc = f"/rivers/{slug}/rivers.json"
    first = call("GET", doc, auth=False, headers={"Accept-Encoding": "gzip"})
    assert first.status == 200, f"the document is not served: {first}"
    etag = first.headers["etag"]
    sent = [
        ("GET", request("GET", doc, "Accept-Encoding: gzip")),
        ("HEAD", request("HEAD", doc, "Accept-Encoding: gzip")),
        ("GET", request("GET", doc, "Accept-Encoding: gzip", f"If-None-Match: {etag}")),
        ("GET", request("GET", "/api/v1/devices", auth=True)),
        ("GET", request("GET", f"/rivers/no-such-{slug}/rivers.json")),
        ("GET", request("GET", "/health/live")),
        ("GET", request("GET", doc + "?cache-buster=1")),
    ]
    with connect() as sock:
        sock.sendall(b"".join(data for _, data in sent))
        answers, closed = read_responses(sock, [m for m, _ in sent], time.monotonic() + 10)
    assert [a[0] for a in answers] == [200, 200, 304, 200, 404, 200, 200], [(a[0], a[1].get("content-type")) for a in answers]
    assert not closed
    document, head, not_modified, devices, missing, live, plain = answers
    assert document[1]["content-encoding"] == ["gzip"] and document[1]["etag"] == [etag]
    body = json.loads(gzip_module.decompress(document[2]))
    assert isinstance(body, list) and body, "the gzip body is not the document"
    assert head[1]["content-length"] == document[1]["content-length"] and head[1]["etag"] == [etag]
    assert not_modified[1]["etag"] == [etag] and "content-length" not in not_modified[1]
    assert "items" in json.loads(devices[2]), devices[2][:200]
    assert missing[1]["content-type"][0].startswith("application/problem+json")
    assert json.loads(live[2])["status"] == "ok"
    assert "content-encoding" not in plain[1] and json.loads(plain[2]) == body, "the query string changed the document"
    ids = [a[1].get("x-request-id", [None])[0] for a in answers]
    assert None not in ids and len(set(ids)) == len(ids), f"request ids: {ids}"
    for a in (document, head, not_modified, plain):
        assert a[1]["x-content-type-options"] == ["nosniff"] and a[1]["access-control-allow-origin"] == ["*"]


def test_connection_close_is_honoured_on_a_document(published_app):
    """A document asked for with Connection: close is answered with Connection: close, and the
    connection is closed after it."""
    slug, _ = published_app
    with connect() as sock:
        sock.sendall(request("GET", f"/rivers/{slug}/v1/rivers.json", close=True))
        answers, closed = read_responses(sock, ["GET"], time.monotonic() + 5)
        if not closed:
            closed = recv_some(sock, time.monotonic() + 3) == b""
    assert len(answers) == 1 and answers[0][0] == 200, answers
    assert answers[0][1].get("connection") == ["close"] and closed, "Connection: close was not honoured"
    assert answers[0][1]["cache-control"] == ["public, max-age=31536000, immutable"]


def test_a_connection_busy_with_documents_is_not_cut_off_then_idles_out(published_app):
    """A kept-alive connection that fetches the document every half second for longer than the
    header timeout stays open (the timeouts see those requests too), and once silent it is closed
    after the idle timeout. A GET that carries a body is read whole and answered."""
    slug, _ = published_app
    doc = f"/rivers/{slug}/rivers.json"
    with connect() as sock:
        start = time.monotonic()
        n = 0
        while time.monotonic() - start < HEADER_TIMEOUT + 1.5:
            sock.sendall(request("GET", doc, "Accept-Encoding: gzip"))
            answers, closed = read_responses(sock, ["GET"], time.monotonic() + 5)
            assert len(answers) == 1 and answers[0][0] == 200 and not closed, f"request {n + 1} failed after {time.monotonic() - start:.1f}s"
            n += 1
            time.sleep(0.5)
        sock.sendall(request("GET", doc, "Content-Length: 5") + b"hello")
        sock.sendall(request("GET", "/health/live"))
        answers, closed = read_responses(sock, ["GET", "GET"], time.monotonic() + 5)
        assert [a[0] for a in answers] == [200, 200] and not closed, answers
        idle = time.monotonic()
        while recv_some(sock, idle + IDLE_TIMEOUT + SLACK + 3) not in (b"", None):
            pass
        took = time.monotonic() - idle
    assert n >= 4
    assert took <= IDLE_TIMEOUT + SLACK + 0.5, f"the idle connection was closed only after {took:.1f}s"
    assert took >= IDLE_TIMEOUT - 0.5, f"the connection was closed after {took:.1f}s, before the idle timeout"


def test_http_1_0_clients_get_the_document_with_their_keep_alive_rules(published_app):
    """HTTP/1.0 (what `ab` sends): without Connection: keep-alive the connection is closed after
    the answer; with it, the answer says keep-alive and the connection serves a second request."""
    slug, _ = published_app
    doc = f"/rivers/{slug}/rivers.json"
    plain = f"GET {doc} HTTP/1.0\r\nHost: {HOST}:{PORT}\r\n\r\n".encode()
    kept = f"HEAD {doc} HTTP/1.0\r\nHost: {HOST}:{PORT}\r\nConnection: keep-alive\r\n\r\n".encode()
    with connect() as sock:
        sock.sendall(plain)
        answers, closed = read_responses(sock, ["GET"], time.monotonic() + 5)
        if not closed:
            closed = recv_some(sock, time.monotonic() + 3) == b""
    assert len(answers) == 1 and answers[0][0] == 200 and json.loads(answers[0][2]), answers
    assert closed, "an HTTP/1.0 connection without keep-alive stayed open"
    with connect() as sock:
        sock.sendall(kept)
        first, closed = read_responses(sock, ["HEAD"], time.monotonic() + 5)
        assert len(first) == 1 and first[0][0] == 200 and not closed, first
        assert first[0][1].get("connection") == ["keep-alive"], first[0][1]
        sock.sendall(kept)
        second, closed = read_responses(sock, ["HEAD"], time.monotonic() + 5)
    assert len(second) == 1 and second[0][0] == 200, "the kept-alive HTTP/1.0 connection did not serve a second request"


# The documents' handler ahead of the HTTP decoder reads one plain form of request head itself;
# everything else goes to NIO's decoder. These check the seam between the two.


def test_a_document_request_arriving_in_pieces_is_answered(published_app):
    """A request head split over many small sends (a few bytes each, with pauses) is answered
    once whole; so is the next one, split across the same sends as the end of the first."""
    slug, _ = published_app
    data = request("GET", f"/rivers/{slug}/rivers.json", "Accept-Encoding: gzip") * 2
    with connect() as sock:
        for i in range(0, len(data), 7):
            sock.sendall(data[i:i + 7])
            time.sleep(0.005)
        answers, closed = read_responses(sock, ["GET", "GET"], time.monotonic() + 5)
    assert [a[0] for a in answers] == [200, 200] and not closed, answers
    assert json.loads(gzip_module.decompress(answers[1][2])), "the second answer's body is not the document"


def test_document_requests_in_other_valid_forms_are_answered_and_the_connection_keeps_serving(published_app):
    """Valid requests that the early handler leaves to the decoder (a Content-Length of 0, a
    Connection option it does not know, lowercase field names with tabs, a head over 8 KB) are
    answered with the document all the same, as is a plain request after them on the same
    connection, each with its own request id."""
    slug, _ = published_app
    doc = f"/rivers/{slug}/rivers.json"
    padding = [f"X-Padding-{i}: {'p' * 1000}" for i in range(9)]
    sent = [
        request("GET", doc, "Content-Length: 0"),
        request("GET", doc, "Connection: TE", "TE: trailers"),
        request("GET", doc, "accept-encoding:\tgzip\t"),
        request("GET", doc, *padding),
        request("GET", doc),
    ]
    with connect() as sock:
        sock.sendall(b"".join(sent))
        answers, closed = read_responses(sock, ["GET"] * len(sent), time.monotonic() + 10)
    assert [a[0] for a in answers] == [200] * len(sent) and not closed, [(a[0], a[2][:100]) for a in answers]
    assert answers[2][1].get("content-encoding") == ["gzip"], answers[2][1]
    plain = json.loads(answers[0][2])
    for a in answers[1:]:
        body = gzip_module.decompress(a[2]) if a[1].get("content-encoding") == ["gzip"] else a[2]
        assert json.loads(body) == plain
    ids = [a[1]["x-request-id"][0] for a in answers]
    assert len(set(ids)) == len(ids), ids


@pytest.mark.parametrize("head", [
    b"GET /rivers/{slug}/rivers.json HTTP/1.1\r\nX: a\x00b\r\n\r\n",
    b"GET /rivers/{slug}/rivers.json HTTP/1.1\r\nX : a\r\n\r\n",
    b"GET /rivers/{slug}/rivers.json HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\nabc",
    b"GET /rivers/{slug}/rivers.json HTTP/9.9\r\n\r\n",
])
def test_malformed_document_requests_get_a_client_error_never_the_document(published_app, head):
    """Heads the protocol forbids (a NUL in a field, a space before the colon, both framings, an
    unknown version) are never answered with the document: the decoder answers 4xx or closes."""
    slug, _ = published_app
    with connect() as sock:
        sock.sendall(head.replace(b"{slug}", slug.encode()))
        answers, closed = read_responses(sock, ["GET"], time.monotonic() + 5)
    assert closed or (answers and 400 <= answers[0][0] < 500), answers
    assert not answers or 400 <= answers[0][0] < 500, f"answered {answers[0][0]}"


@pytest.mark.parametrize("first", ["document", "api"])
def test_a_client_that_never_reads_its_answers_cannot_make_the_server_queue_them(published_app, first):
    """Documents asked for back to back, 32 MB of HEAD requests (about 400,000), by a client that
    reads none of the answers: the server stops reading once the answers back up, so its memory
    grows by a few MB, not by the hundreds of MB the answers would take. The same when the
    connection's first request was an API call (the documents are then answered after decoding)."""
    import select
    slug, _ = published_app
    one = request("HEAD", f"/rivers/{slug}/rivers.json", "Accept-Encoding: gzip")
    batch = one * (256 * 1024 // len(one))
    before = SERVER.rss_kb()
    sent, blocked = 0, False
    with connect() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
        if first == "api":
            sock.sendall(request("GET", "/health/live"))
        sock.setblocking(False)
        deadline = time.monotonic() + 20
        while sent < 32 * 1024 * 1024 and time.monotonic() < deadline:
            _, writable, _ = select.select([], [sock], [], 1.0)
            if not writable:
                blocked = True
                break
            try:
                sent += sock.send(batch[sent % len(batch):])
            except BlockingIOError:
                continue
        grown_mb = (SERVER.rss_kb() - before) / 1024
    assert blocked, f"the server read all {sent >> 20} MB of requests without their answers being read"
    assert grown_mb < 64, f"the server grew by {grown_mb:.0f} MB for one client that does not read"


def test_a_chunked_call_leaves_its_connection_on_the_byte_path_and_its_data_is_never_a_request(published_app):
    """A bodiless POST sent chunked (as NIO's and AsyncHTTPClient's encoders send one) ends where
    its last chunk does: the document asked for next on that connection is answered from memory
    again (the byte path's answers do not name the server; the framework's do). A request hidden
    in a chunk's data is data: it is never answered, and the answers stay in step."""
    slug, _ = published_app
    doc = f"/rivers/{slug}/rivers.json"
    chunked = ["Transfer-Encoding: chunked"]
    hidden = request("GET", doc)
    smuggling = f"{len(hidden):x}\r\n".encode() + hidden + b"\r\n0\r\n\r\n"
    with connect() as sock:
        sock.sendall(
            head_lines("POST", "/api/v1/token", chunked, close=False) + b"0\r\n\r\n" + request("GET", doc)
            + head_lines("POST", "/api/v1/token", chunked, close=False) + smuggling + request("GET", doc, close=True))
        answers, closed = read_responses(sock, ["POST", "GET", "POST", "GET"], time.monotonic() + 10)
        rest = b""
        while not closed:
            chunk = recv_some(sock, time.monotonic() + 5)
            if not chunk:
                break
            rest += chunk
    summary = [(status, headers.get("server")) for status, headers, _ in answers]
    assert summary == [(405, ["rivers"]), (200, None), (405, ["rivers"]), (200, None)], summary
    assert rest == b"", f"an answer more than the requests sent: {rest[:200]!r}"


def test_every_public_answer_carries_a_date(published_app):
    """Issue 24: RFC 9110 §6.6.1: an origin server with a clock sends Date. The byte path (a fresh
    connection), the decoded path (a connection that carried an API call first) and the routes
    (a 404, an API answer) all do, in IMF-fixdate."""
    slug, _ = published_app
    imf = re.compile(r"(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d GMT")
    fresh = raw_http(request("GET", f"/rivers/{slug}/rivers.json", close=True))
    assert fresh.status == 200 and imf.fullmatch(fresh.header("date") or ""), fresh
    s = connect()
    try:
        s.sendall(head_lines("GET", "/api/v1/token", close=False) + request("GET", f"/rivers/{slug}/rivers.json", close=True))
        answers, _ = read_responses(s, ["GET", "GET"], time.monotonic() + 5)
    finally:
        s.close()
    assert len(answers) == 2 and all(len(headers.get("date", [])) == 1 and imf.fullmatch(headers["date"][0]) for _, headers, _ in answers), answers
    for a in [call("GET", f"/rivers/{slug}-nope/rivers.json", auth=False), call("GET", "/api/v1/token")]:
        assert imf.fullmatch(a.header("date") or ""), a


@pytest.mark.parametrize("path", ["/api/v1/apps?q=%00", "/api/v1/apps?q=a%01b", "audit?actor=%00", "audit?kind=x%00", "audit?id=%7F"])
def test_control_characters_in_query_parameters_are_400(path):
    a = call("GET", path)
    expect_problem(a, 400)
    assert a.json["field"] in ("q", "actor", "kind", "id"), a.json
