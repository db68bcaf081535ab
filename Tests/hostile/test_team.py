"""Hostile requests against accounts and sessions (issue 12): oversized and malformed sign-ins,
forged cookies, cross-site writes, guessing floods, and a token of one role reaching for more.
Each answer must follow the error contract of conftest.expect_problem, and the server must survive.
"""
import concurrent.futures
import time

from conftest import API, call, expect_problem, ok, run_cli, uid

SIGN_IN = "/api/v1/session"


def sign_in(email, password, **kw):
    return call("POST", SIGN_IN, {"email": email, "password": password}, auth=False, **kw)


def test_sign_in_bodies_out_of_bounds_are_422_before_any_hashing():
    """A password of a megabyte, a number for an email, unknown members: refused at once (no
    bcrypt work is spent on them)."""
    expect_problem(sign_in("a@b.example", "x" * 5000), 422, "/password")
    expect_problem(sign_in("a" * 300 + "@b.example", "password!!"), 422, "/email")
    expect_problem(call("POST", SIGN_IN, {"email": 5, "password": "password!!"}, auth=False), 422, "/email")
    expect_problem(call("POST", SIGN_IN, {"email": "a@b.example", "password": "p", "admin": True}, auth=False), 422)
    expect_problem(call("POST", SIGN_IN, raw=b'{"email": "a@b.example", "password": ', auth=False), 400)


def test_forged_and_oversized_session_cookies_are_401():
    """A cookie that names no session, one far too long, one with NUL-free junk: 401, never 500."""
    for cookie in ("rivers_session=rss_" + "0" * 64, "rivers_session=" + "x" * 5000, "rivers_session=;;;", "other=1; rivers_session=%00%ff"):
        expect_problem(call("GET", "/api/v1/session", auth=False, headers={"Cookie": cookie}), 401)
        expect_problem(call("GET", "families", auth=False, headers={"Cookie": cookie}), 401)


def test_a_guessing_flood_is_throttled_and_costs_no_more_cpu():
    """Twenty wrong passwords for one account, eight at a time: the first few are 401, the rest 429
    with Retry-After; once throttled, answers come at once (no bcrypt work), and the server lives."""
    email = f"flood-{uid()}@example.com"
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(lambda _: sign_in(email, "wrong password", timeout=20), range(20)))
    statuses = sorted(a.status for a in answers)
    assert set(statuses) <= {401, 429}, statuses
    assert statuses.count(429) >= 5, f"not throttled: {statuses}"
    throttled = sign_in(email, "wrong password")
    body = expect_problem(throttled, 429)
    assert body["type"] == "/problems/too-many-sign-ins"
    assert int(throttled.header("retry-after")) > 0


def test_a_flood_of_sign_ins_is_bounded():
    """Password checks are a quarter second of CPU each: 48 sign-ins at once (each for another
    email, so no throttle applies) fill the bounded queue, and the rest are refused at once with
    503 and Retry-After instead of piling up work."""
    emails = [f"burst-{i}-{uid()}@example.com" for i in range(48)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=48) as pool:
        answers = list(pool.map(lambda email: sign_in(email, "wrong password", timeout=30), emails))
    statuses = [a.status for a in answers]
    # (429 too: the suite's earlier failures from this address may reach its limit meanwhile.)
    assert set(statuses) <= {401, 429, 503}, statuses
    busy = [a for a in answers if a.status == 503]
    assert busy, f"nothing was refused: {statuses}"
    body = busy[0].json
    assert body["type"] == "/problems/busy" and busy[0].header("retry-after") == "1", busy[0]
    assert min(a.elapsed for a in busy) < 1, "a refusal must not wait for the queue"


def test_cross_site_writes_with_a_cookie_are_refused():
    """A signed-in browser tricked into writing: without X-CSRF-Token, or from another origin, 403
    and nothing is stored."""
    email = f"csrf-{uid()}@example.com"
    made = run_cli("user", "create", email, "--admin")
    assert made.returncode == 0, made.stderr
    secret = made.stdout.strip().splitlines()[-1].split("#")[-1]
    used = call("POST", "/api/v1/link", {"password": "a long enough password"}, auth=False, headers={"X-Link-Secret": secret})
    assert used.status == 201, used
    cookie = used.header("set-cookie").split(";")[0]
    csrf = used.json["csrf_token"]
    family_id = f"FAMILY_X{uid()}"
    body = {"id": family_id, "name": "X", "reference_size": {"width": 320, "height": 568}}
    expect_problem(call("POST", "families", body, auth=False, headers={"Cookie": cookie}), 403, "X-CSRF-Token")
    expect_problem(call("POST", "families", body, auth=False, headers={"Cookie": cookie, "X-CSRF-Token": csrf,
                                                                    "Origin": "https://attacker.example"}), 403, "Origin")
    assert call("GET", f"families/{family_id}").status == 404, "stored anyway"
    # A link used once is gone.
    expect_problem(call("POST", "/api/v1/link", {"password": "a long enough password"}, auth=False, headers={"X-Link-Secret": secret}), 410)


def test_a_viewer_token_cannot_reach_for_more():
    """A viewer token: every kind of write and the admin pages are 403 problem+json naming the need;
    it cannot mint itself an admin token."""
    made = ok("POST", "tokens", {"name": f"viewer {uid()}", "role": "viewer"})
    viewer = made["token"]
    for method, path, body, need in [
        ("POST", "families", {}, "editor"), ("POST", "publish", {}, "publisher"), ("GET", "tokens", None, "admin"),
        ("POST", "tokens", {"name": "escalate", "role": "admin"}, "admin"), ("GET", "audit", None, "admin"),
        ("DELETE", API, None, "admin"), ("POST", "/api/v1/users", {"email": "x@y.example"}, "instance admin"),
    ]:
        answer = call(method, path, body, token=viewer)
        assert expect_problem(answer, 403)["needs"] == need, answer
    ok("DELETE", f"tokens/{made['id']}")
    expect_problem(call("GET", "families", token=viewer), 401)


def test_one_time_link_secrets_of_any_shape_are_404():
    """Secrets that are too long, percent-encoded junk, or just wrong: 404 at once, in the
    X-Link-Secret header as in the (deprecated) path; no header at all is a 400 naming it."""
    for secret in ("rvl_" + "0" * 64, "x" * 150, "%2e%2e", "rvl_" + "z" * 10, "rvl_\u00e9t\u00e9"):
        header = {"X-Link-Secret": secret.encode("utf-8").decode("latin-1")}
        expect_problem(call("GET", "/api/v1/link", auth=False, headers=header), 404)
        expect_problem(call("POST", "/api/v1/link", {"password": "whatever password"}, auth=False, headers=header), (404, 422))
        expect_problem(call("GET", f"/api/v1/links/{secret}", auth=False), 404)
        expect_problem(call("POST", f"/api/v1/links/{secret}", {"password": "whatever password"}, auth=False), (404, 422))
    expect_problem(call("GET", "/api/v1/link", auth=False), 400, "X-Link-Secret")
    expect_problem(call("POST", "/api/v1/link", {"password": "whatever password"}, auth=False), 400, "X-Link-Secret")
    started = time.monotonic()
    expect_problem(call("GET", "/api/v1/links/" + "a" * 3000, auth=False), 404)
    expect_problem(call("GET", "/api/v1/link", auth=False, headers={"X-Link-Secret": "a" * 3000}), 404)
    assert time.monotonic() - started < 1
