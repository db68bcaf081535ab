"""Issue 15, failover 2: PostgreSQL is restarted (fast shutdown, then start) under a mixed load of
public reads, API reads, If-Match PATCHes and publishes.

- Public reads never fail: through nginx (the URL apps use, mostly from its cache, and requests
  with a Host of their own that always reach a process) and directly from each process.
- Every API answer (reads, writes, publishes) is a success or, while the database is down, a 503
  `application/problem+json` of type `/problems/database-unavailable` with `Retry-After`, within
  2 s: never a hang, never a 500.
- After PostgreSQL is back, writes, reads and publishes succeed again without any process being
  restarted, and a publish reaches every process again (LISTEN came back).
- GET /health (readiness) of each process says 503 during the outage and 200 afterwards, always
  within 2 s; nothing acknowledged, before or during the outage, is lost (psql).
"""
import collections
import os
import time

import faultlib as F

WARMUP = 2.0
RECOVERY = float(os.environ.get("FAULT_RECOVERY_SECONDS", "20"))


def test_restart_postgres_under_mixed_load(cluster):
    pids = {r.label: r.pid for r in cluster.rivers}
    nginx = cluster.nginx.url
    ledgers = F.create_screens(cluster.rivers[0].url, f"Outage {F.uid(4)}", 2)
    public, api_reads, publishes, health = [], [], [], collections.defaultdict(list)
    load = F.Load()
    load.add("public-cached", F.public_reader, nginx + F.PUBLIC, F.a_published_document, public)
    load.add("public-uncached", lambda stop: F.public_reader(stop, nginx + F.PUBLIC, F.a_published_document, public,
                                                              unique_host=True, pause=0.02))
    load.add("public-direct", lambda stop: F.public_reader(stop, [r.url + F.PUBLIC for r in cluster.rivers],
                                                            F.a_published_document, public, pause=0.02))
    load.add("api-reads", lambda stop: F.repeat(stop, lambda: F.call("GET", f"{nginx}{F.API}/screens/{cluster.home}"),
                                                api_reads, 0.1))
    for i, ledger in enumerate(ledgers):
        load.add(f"writer-{i}", lambda stop, l=ledger: F.patch_writer(stop, [nginx], l, pause=0.05))
    load.add("publisher", lambda stop: F.repeat(stop, lambda: F.call("POST", f"{nginx}{F.API}/publish", {"note": "outage"}),
                                                publishes, 0.3))
    for r in cluster.rivers:
        load.add(f"health-{r.label}", lambda stop, r=r: F.repeat(
            stop, lambda: F.call("GET", r.url + "/health", auth=False, timeout=3), health[r.label], 0.2))

    load.start()
    try:
        time.sleep(WARMUP)
        down_from = time.monotonic()
        cluster.pg.stop()
        down_at = time.monotonic()
        time.sleep(max(0.0, F.OUTAGE_SECONDS - (down_at - down_from)))
        cluster.pg.start()
        up_at = time.monotonic()

        def recovered():
            groups = [api_reads, publishes] + [l.answers for l in ledgers]
            return all(any(a.ok and a.started >= up_at for a in list(g)) for g in groups)
        F.wait_until(recovered, RECOVERY, 0.2)
        time.sleep(1.0)
    finally:
        load.stop()

    problems = []
    outage = f"PostgreSQL down from {down_from - down_from:.1f} s to {up_at - down_from:.1f} s"

    # 1. Public reads.
    failed = [a for a in public if a.note]
    if failed:
        problems.append(f"{len(failed)} of {len(public)} public reads failed:\n{F.summarize(failed)}")

    # 2. Every API answer: a success, or the 503 the issue asks for.
    writes = [a for l in ledgers for a in l.answers]
    bad = []
    for kind, answers in (("PATCH", writes), ("publish", publishes), ("API read", api_reads)):
        for a in answers:
            if kind == "PATCH" and a.status == 412:
                continue  # after a write whose answer was lost; checked against the database below
            wrong = F.outage_answer_problems(a)
            if wrong:
                a.note = f"{kind} at {a.started - down_from:+.1f} s: " + "; ".join(wrong)
                bad.append(a)
    if bad:
        reasons = collections.Counter(a.note.split(": ", 1)[1] for a in bad)
        problems.append(f"{len(bad)} API answers were neither a success nor a quick 503 problem with Retry-After "
                        f"({outage}); {dict(reasons)}:\n{F.summarize(bad, 8)}")
    during = [a for a in writes + publishes + api_reads if down_at <= a.started <= up_at]
    if not any(a.status == 503 for a in during):
        problems.append(f"no API request sent while PostgreSQL was down was answered 503 ({len(during)} sent: "
                        f"{dict(collections.Counter(a.status for a in during))})")

    # 3. Back without a restart.
    late = []
    for name, answers in [("API reads", api_reads), ("publishes", publishes)] + [(l.label, l.answers) for l in ledgers]:
        firsts = [a for a in answers if a.ok and a.started >= up_at]
        if not firsts:
            late.append(f"{name}: no success within {RECOVERY:.0f} s of PostgreSQL's start")
        else:
            print(f"{name}: first success {firsts[0].started + firsts[0].elapsed - up_at:.2f} s after PostgreSQL was back")
    problems += late
    for r in cluster.rivers:
        if r.pid != pids[r.label] or not r.alive():
            problems.append(f"{r.label} was restarted or died (status {r.exit_status()})")

    # 4. Readiness.
    for r in cluster.rivers:
        answers = health[r.label]
        slow = [a for a in answers if a.status is None or a.elapsed > F.OUTAGE_ANSWER]
        odd = [a for a in answers if a.status not in (None, 200, 503)]
        if slow or odd:
            problems.append(f"{r.label}: GET /health did not answer 200 or 503 within 2 s:\n{F.summarize(slow + odd, 3)}")
        if not any(a.status == 503 for a in answers if down_at + 1.5 <= a.started <= up_at):
            problems.append(f"{r.label}: GET /health never said 503 while PostgreSQL was down "
                            f"({dict(collections.Counter(a.status for a in answers if down_at <= a.started <= up_at))})")
        if not answers or answers[-1].status != 200:
            problems.append(f"{r.label}: GET /health is not 200 again after PostgreSQL came back "
                            f"(last: {answers[-1] if answers else 'none'})")

    # 5. Nothing acknowledged is lost: the screens, and every acknowledged publish.
    problems += F.check_against_database(cluster.pg, ledgers)
    acked = sorted({a.json["version"]["number"] for a in publishes if a.ok and isinstance(a.json, dict)})
    rows = cluster.pg.query(f"SELECT v.number, a.current_version FROM versions v JOIN apps a ON a.id = v.app_id "
                            f"WHERE a.slug = '{F.APP}' ORDER BY v.number")
    numbers = [int(n) for n, _ in rows]
    missing = [n for n in acked if n not in numbers]
    if missing:
        problems.append(f"LOST: published versions {missing} were acknowledged but are not in the database")
    if numbers != list(range(1, len(numbers) + 1)):
        problems.append(f"version numbers are not consecutive: {numbers}")
    if rows and int(rows[0][1]) != numbers[-1]:
        problems.append(f"the app's current version is {rows[0][1]}, not the latest {numbers[-1]}")

    # 6. Every process hears of a publish again (its LISTEN connection came back).
    if not late:
        name = f"Home {F.uid(5)}"
        F.call("PATCH", f"{cluster.rivers[0].url}{F.API}/screens/{cluster.home}", {"name": name})
        a = F.call("POST", f"{cluster.rivers[0].url}{F.API}/publish", {"note": "after the outage"})
        if a.status != 201:
            problems.append(f"a publish after the outage failed: {a}")
        else:
            number = str(a.json["version"]["number"])
            for r in cluster.rivers:
                if not F.wait_until(lambda: F.call("GET", r.url + F.PUBLIC, auth=False, timeout=2)
                                    .header("x-rivers-version") == number, 5, 0.05):
                    problems.append(f"{r.label} did not serve version {number}, published after the outage, within 5 s")

    summary = (f"{outage}; {len(public)} public reads, {len(api_reads)} API reads, {len(writes)} PATCHes "
               f"({sum(len(l.acked) for l in ledgers)} acknowledged), {len(publishes)} publishes ({len(acked)} acknowledged); "
               f"API answers by status: {dict(collections.Counter(a.status for a in writes + publishes + api_reads))}")
    print(summary)
    assert not problems, summary + "\n  " + "\n  ".join(problems)
