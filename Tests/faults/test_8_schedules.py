"""Issue 27: scheduled promotions fire within 2 s of their time, exactly once across the three
processes, also when one of them is killed at the moment they are due; one missed while every
process was down fires at the next start and says it was late.

"Once" is read from the audit log: each schedule has one `fire` entry, and the channel moved once
for it (one `promote` entry by `schedule` per schedule)."""
import datetime
import time

import faultlib as F

WITHIN = 2.0


def iso(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def parse(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def two_versions(cluster):
    """Two versions the schedules can move between; returns their numbers."""
    base = cluster.rivers[0].url
    F.ok(F.call("PATCH", f"{base}{F.API}/screens/{cluster.home}", {"name": f"Home {F.uid(5)}"}), "renaming the home screen")
    newer = F.ok(F.call("POST", f"{base}{F.API}/publish", {"note": "schedules"}), "publishing")["version"]["number"]
    return newer - 1, newer


def schedule(base, channel, version, at):
    return F.ok(F.call("POST", f"{base}{F.API}/schedules", {"channel": channel, "version": version, "at": iso(at)}),
                f"scheduling {channel} → {version}")


def ensure_channel(base, name, version):
    a = F.call("PUT", f"{base}{F.API}/channels/{name}", {"version": version})
    assert a.status in (200, 201), f"making channel {name}: {a}"


def audit(base, **query):
    q = "&".join(f"{k}={v}" for k, v in query.items())
    return F.ok(F.call("GET", f"{base}{F.API}/audit?{q}&limit=200"), "reading the audit log")["items"]


def fired_once(base, made, problems, *, late=False):
    """Every schedule in `made` fired, once, within WITHIN of its time (or late, when `late`)."""
    listed = {s["id"]: s for s in F.ok(F.call("GET", f"{base}{F.API}/schedules?limit=200"), "listing schedules")["items"]}
    fires = audit(base, kind="schedule")
    for s in made:
        now = listed.get(s["id"])
        if now is None or now["state"] != "fired":
            problems.append(f"schedule {s['id']} ({s['channel']} → {s['version']}) is {now and now['state']}, not fired")
            continue
        delay = parse(now["fired_at"]) - parse(now["at"])
        if late:
            if not now["late"]:
                problems.append(f"schedule {s['id']} fired {delay:.1f} s after its time but is not marked late")
        elif delay > WITHIN or delay < -0.01:
            problems.append(f"schedule {s['id']} fired {delay:.2f} s after its time (at most {WITHIN} s)")
        n = sum(1 for e in fires if e["resource_id"] == s["id"] and e["action"] == "fire")
        if n != 1:
            problems.append(f"schedule {s['id']} fired {n} times")
    return listed


def test_schedules_fire_once_across_processes_also_when_one_is_killed_as_they_fall_due(cluster):
    base = cluster.rivers[1].url
    older, newer = two_versions(cluster)
    for name in ("qa", "beta", "staging"):
        ensure_channel(base, name, newer)
    problems = []

    # Round 1: all three processes up; six schedules due at the same moment.
    due = time.time() + 4
    made = [schedule(cluster.rivers[i % 3].url, ["qa", "beta", "staging"][i % 3], older if i % 2 else newer, due + (i % 2) * 0.2)
            for i in range(6)]
    time.sleep(max(0, due - time.time()) + WITHIN + 1.5)
    fired_once(base, made, problems)

    # Round 2: rivers-1 is killed at the moment they are due; the others fire them.
    due = time.time() + 4
    made = [schedule(base, "qa", older if i % 2 else newer, due) for i in range(4)]
    made.append(schedule(base, "production", older, due))
    time.sleep(max(0, due - time.time()))
    cluster.rivers[0].kill()
    time.sleep(WITHIN + 1.5)
    fired_once(base, made, problems)
    # Production moved to the older version: every process still running serves it.
    for r in cluster.rivers[1:]:
        a = F.call("GET", r.url + F.PUBLIC, auth=False, headers={"Accept-Encoding": "identity"})
        if a.header("x-rivers-version") != str(older):
            problems.append(f"{r.label} serves version {a.header('x-rivers-version')} after production was scheduled to {older}")
    # Through nginx (deploy/nginx/rivers.conf), a channel's URL is cached like the main one: a
    # request soon after the first is a HIT. (Once, in a full run, the second one right after the
    # first was a MISS too; a few more tries tell a slow cache write from no caching, and nginx's
    # log says what it did with each.)
    channel_url = f"/rivers/{F.APP}/channels/qa/rivers.json"
    through = [F.call("GET", f"{cluster.nginx.url}{channel_url}", auth=False) for _ in range(2)]
    for _ in range(4):
        if through[-1].header("x-cache-status") == "HIT":
            break
        time.sleep(0.25)
        through.append(F.call("GET", f"{cluster.nginx.url}{channel_url}", auth=False))
    if any(a.status != 200 for a in through) or through[-1].header("x-cache-status") != "HIT":
        logged = [e for e in cluster.nginx.access_lines() if channel_url in e["request"]]
        problems.append(f"the channel URL through nginx: {[str(a)[:200] for a in through]}, cache {[a.header('x-cache-status') for a in through]}, "
                        f"Cache-Control {through[0].header('cache-control')!r}; nginx logged {logged}")
    if "channel-qa" not in (through[0].header("surrogate-key") or ""):
        problems.append(f"no Surrogate-Key naming the channel through nginx: {through[0].headers}")
    # A schedule moves its channel only when the channel serves another version: round 1 moves
    # beta, qa and staging (three of its six find theirs there already), round 2 production and
    # qa at least once (its four alternate, in whatever order they fire); never more than 11.
    moves = [e for e in audit(base, kind="channel") if e["actor"] == "schedule"]
    if not 5 <= len(moves) <= 11:
        problems.append(f"{len(moves)} channel moves by schedules in the audit log, expected 5 to 11")
    assert not problems, "\n".join(problems)


def test_a_schedule_missed_while_every_process_was_down_fires_at_start_marked_late(cluster):
    base = cluster.rivers[0].url
    older, newer = two_versions(cluster)
    ensure_channel(base, "qa", newer)
    due = time.time() + 2
    made = [schedule(base, "qa", older, due)]
    for r in cluster.rivers:
        r.kill()
    time.sleep(max(0, due - time.time()) + 6)
    started = time.monotonic()
    cluster.rivers[2].start()
    cluster.rivers[2].wait_ready()
    base = cluster.rivers[2].url
    deadline = started + F.START_DEADLINE
    state = None
    while time.monotonic() < deadline:
        listed = F.call("GET", f"{base}{F.API}/schedules")
        state = listed.json and next((s for s in listed.json["items"] if s["id"] == made[0]["id"]), None)
        if state and state["state"] == "fired":
            break
        time.sleep(0.2)
    problems = []
    fired_once(base, made, problems, late=True)
    entry = next((e for e in audit(base, kind="schedule") if e["resource_id"] == made[0]["id"] and e["action"] == "fire"), None)
    if entry is None or "late" not in entry["summary"]:
        problems.append(f"the audit entry of the late firing does not say it was late: {entry}")
    a = F.call("GET", f"{base}/rivers/{F.APP}/channels/qa/rivers.json", auth=False)
    if a.header("x-rivers-version") != str(older):
        problems.append(f"qa serves {a.header('x-rivers-version')}, not {older}: {a}")
    assert not problems, "\n".join(problems)
