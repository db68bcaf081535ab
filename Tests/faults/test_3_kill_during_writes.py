"""Issue 15, failover 3: a process is killed (SIGKILL) during a burst of If-Match PATCHes; every
write the client saw acknowledged is in the database, and nothing is half-written.

Six writers each own a screen and PATCH it as fast as answers come, through nginx and directly at
the process to be killed (so that writes are in flight there when it dies). Each write sets the
screen's name and its component's item_limit to the same number. A write whose answer is lost (the
process died, nginx answered 502) may or may not have been applied: the writer reads the screen
again and goes on. Afterwards the database (psql) must hold, for every screen, the last
acknowledged write or a later one whose answer was lost, at the right revision, with name and
item_limit from the same write.
"""
import signal
import time

import faultlib as F

WRITERS = 6
BURST_SECONDS = 6.0


def test_kill_a_process_during_a_burst_of_patches(cluster):
    victim = cluster.rivers[2]
    survivors = [r.url for r in cluster.rivers if r is not victim]
    ledgers = F.create_screens(cluster.rivers[0].url, f"Burst {F.uid(4)}", WRITERS)
    load = F.Load()
    deadline = time.monotonic() + BURST_SECONDS + 30
    for i, ledger in enumerate(ledgers):
        # Half through nginx (which never resends a PATCH that reached a process); half alternating
        # between the victim and nginx, so that some are in flight on the victim when it dies.
        bases = [cluster.nginx.url] if i % 2 == 0 else [victim.url, cluster.nginx.url]
        load.add(f"writer-{i}", lambda stop, b=bases, l=ledger: F.patch_writer(stop, b, l, deadline=deadline))
    load.start()
    try:
        time.sleep(BURST_SECONDS / 3)
        killed_at = time.monotonic()
        victim.kill(signal.SIGKILL)
        time.sleep(BURST_SECONDS * 2 / 3)
    finally:
        load.stop(deadline=30)

    answers = [a for l in ledgers for a in l.answers]
    before = sum(1 for a in answers if a.ok and a.started + a.elapsed < killed_at)
    after = sum(1 for a in answers if a.ok and a.started > killed_at)
    lost = [a for a in answers if not a.ok]
    wrong = [a for a in answers if a.status is not None and a.status not in (200, 412, 502) and not a.ok]
    summary = (f"{len(answers)} PATCHes by {WRITERS} writers, {before} acknowledged before the kill and {after} after; "
               f"{len(lost)} not acknowledged ({sum(1 for a in lost if a.error.startswith('refused'))} refused connections, "
               f"{sum(1 for a in lost if a.status is None and not a.error.startswith('refused'))} cut off without an answer, "
               f"{sum(1 for a in lost if a.status == 502)} 502 from nginx, {sum(1 for a in lost if a.status == 412)} 412); "
               f"{sum(len(l.uncertain) for l in ledgers)} in doubt")
    print(summary)

    problems = F.check_against_database(cluster.pg, ledgers)
    # What every live process answers is what the database holds.
    for l in ledgers:
        for base in survivors:
            a = F.call("GET", f"{base}{F.API}/screens/{l.screen_id}")
            row = cluster.pg.query(f"SELECT revision, body->>'name' FROM screens WHERE id = '{l.screen_id}'")[0]
            if not a.ok or a.json.get("revision") != int(row[0]) or a.json.get("name") != row[1]:
                problems.append(f"{l.label}: {base} answers {a} while the database holds revision {row[0]}, {row[1]!r}")
    assert not problems, f"after SIGKILL during writes ({summary}):\n  " + "\n  ".join(problems)
    assert before > 0 and after > 0, f"the kill did not fall inside the burst: {summary}"
    assert not wrong, f"answers other than 200, 412 or nginx's 502 for a write cut short:\n{F.summarize(wrong)}"
