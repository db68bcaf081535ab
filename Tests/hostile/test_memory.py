"""Issue 24, finding 6: memory. An editor could store screens of a megabyte each (a free-form member
costs nothing to send) with no cap on screens or on the app's size, and any viewer's draft.json,
problems, list or preview parsed all of it: six such screens read twice at once took the server to
1.15 GB. Now a screen, the screens of an app and the app's stored size are capped, and an app filled
to every cap, read by four draft.json and four previews at once, keeps the server under 300 MB."""
import concurrent.futures
import json
import threading
import time

from conftest import BASE_URL, SERVER, call, family_body, run_cli, uid

MAX_SCREEN_BYTES = 256 * 1024
MAX_APP_BYTES = 2 * 1024 * 1024
LIMIT_KB = 300 * 1024


def new_app():
    slug = f"memory-{uid().lower()}"
    made = run_cli("app", "create", slug, "--quiet")
    assert made.returncode == 0, made.stderr
    return slug, made.stdout.strip().splitlines()[-1]


def screen_with_blob(name, size):
    """A screen whose free-form member is an array of small numbers: the most nodes per byte sent
    (each `0,` is one JSON value), the costliest shape to parse."""
    count = max(0, (size - 400) // 3)  # stored as PostgreSQL writes it back: "0, " a number
    return {"name": name, "family": "FAMILY_1", "ui_components": [
        {"component_type": "list", "cell_styles": ["LIST_1"], "data": {"source": "feed-1"}, "rules": {"item_limit": 6}}],
        "extra": {"blob": [0] * count}}


def test_a_screen_over_its_cap_is_refused():
    slug, token = new_app()
    api = f"/api/v1/apps/{slug}"
    assert call("POST", f"{api}/families", family_body("FAMILY_1"), token=token).status == 201
    too_big = call("POST", f"{api}/screens", screen_with_blob("Big", MAX_SCREEN_BYTES + 4096), token=token, timeout=30)
    assert too_big.status == 422, too_big
    assert "256 KB" in too_big.json["detail"], too_big.json
    assert call("GET", f"{api}/screens", token=token).json["total"] == 0


def test_an_app_at_every_cap_read_four_at_a_time_stays_under_300_mb():
    slug, token = new_app()
    api = f"/api/v1/apps/{slug}"
    assert call("POST", f"{api}/families", family_body("FAMILY_1"), token=token).status == 201
    # Screens just under the screen cap, until the app's size cap refuses one.
    ids, refused = [], None
    for i in range(MAX_APP_BYTES // (MAX_SCREEN_BYTES - 8192) + 2):
        a = call("POST", f"{api}/screens", screen_with_blob(f"S{i}", MAX_SCREEN_BYTES - 8192), token=token, timeout=60)
        if a.status != 201:
            refused = a
            break
        ids.append(a.json["id"])
    assert refused is not None and refused.status == 422 and "KB" in refused.json["detail"], refused
    assert len(ids) >= 6, f"only {len(ids)} screens fit"

    peak = [SERVER.rss_kb() or 0]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], SERVER.rss_kb() or 0)
            time.sleep(0.01)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        reads = [f"{api}/draft.json"] * 4 + [f"{api}/screens/{ids[i]}/preview" for i in range(4)] + [f"{api}/problems", f"{api}/screens?limit=200"]
        for _ in range(2):
            with concurrent.futures.ThreadPoolExecutor(max_workers=len(reads)) as pool:
                answers = list(pool.map(lambda path: call("GET", path, token=token, timeout=60), reads))
            for a in answers:
                assert a.status in (200, 429, 503), a
            assert any(a.status == 200 and a.path.endswith("draft.json") for a in answers), [a.status for a in answers]
    finally:
        done.set()
        sampler.join()
    print(f"peak RSS {peak[0] // 1024} MB, {len(ids)} screens")
    assert peak[0] < LIMIT_KB, f"peak RSS {peak[0] // 1024} MB with an app at every cap read at once"
