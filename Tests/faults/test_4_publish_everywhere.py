"""Issue 15, failover 4: a publish on one process is served by all three within one second (asked
directly, not through nginx's cache), and a process started later serves it at once.

Three rounds, publishing on each process in turn: the home screen is renamed, published there, and
every process is asked for the current document until its X-Rivers-Version is the new version.
"""
import time

import faultlib as F

WITHIN = 1.0


def serves(base, number):
    a = F.call("GET", base + F.PUBLIC, auth=False, timeout=2)
    return a if a.status == 200 and a.header("x-rivers-version") == str(number) else None


def test_a_publish_is_served_everywhere_within_a_second(cluster):
    problems, timings = [], []
    number = None
    for k, publisher in enumerate(cluster.rivers):
        name = f"Home {F.uid(5)}"
        F.ok(F.call("PATCH", f"{publisher.url}{F.API}/screens/{cluster.home}", {"name": name}), "renaming the home screen")
        a = F.call("POST", f"{publisher.url}{F.API}/publish", {"note": f"round {k + 1}"})
        published_at = a.started + a.elapsed
        assert a.status == 201, f"publishing on {publisher.label}: {a}"
        number = a.json["version"]["number"]
        seen = {}
        while len(seen) < len(cluster.rivers) and time.monotonic() < published_at + WITHIN + 2:
            for r in cluster.rivers:
                if r.label not in seen:
                    answer = serves(r.url, number)
                    if answer:
                        seen[r.label] = answer.started + answer.elapsed - published_at
                        assert name.encode() in answer.body, f"{r.label} serves version {number} without the new name"
            time.sleep(0.02)
        timings.append(f"published on {publisher.label} (v{number}): " +
                       ", ".join(f"{r.label} {seen[r.label]:.2f}s" if r.label in seen else f"{r.label} never"
                                 for r in cluster.rivers))
        for r in cluster.rivers:
            if seen.get(r.label, WITHIN + 1) > WITHIN:
                problems.append(f"{r.label} served version {number} (published on {publisher.label}) "
                                + (f"after {seen[r.label]:.2f} s" if r.label in seen else f"not within {WITHIN + 2:.0f} s")
                                + f"; it answers: {F.call('GET', r.url + F.PUBLIC, auth=False, timeout=2)}")

    # A process started now serves the current version with its first document.
    late = cluster.spawn("rivers-late").start()
    first = None
    early = []
    deadline = time.monotonic() + F.START_DEADLINE
    while time.monotonic() < deadline and late.alive():
        a = F.call("GET", late.url + F.PUBLIC, auth=False, timeout=2)
        if a.status == 200:
            first = a
            break
        if a.status is not None:
            early.append(a)
        time.sleep(0.05)
    print("\n".join(timings))
    assert first is not None, (f"a process started after the publish served no document within {F.START_DEADLINE:.0f} s "
                               f"(alive: {late.alive()}):\n{late.log_tail()}")
    if first.header("x-rivers-version") != str(number):
        problems.append(f"the process started later first served version {first.header('x-rivers-version')}, not {number}")
    unexpected = [a for a in early if a.status != 503]
    if unexpected:
        problems.append("before serving it, the process started later answered:\n" + F.summarize(unexpected))
    assert not problems, "\n".join(timings) + "\n  " + "\n  ".join(problems)
