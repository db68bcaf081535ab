"""Issue 15, failover 1: under bounded load on the public URL through nginx, one process is killed
with SIGKILL and started again; the client sees no failed public request.

Half the readers ask as apps do (the same URL: nginx's cache answers most of them); the other half
give every request a Host of its own, which nginx's cache key includes, so those requests always
reach a process and are the ones that meet the killed process (nginx then retries them on another:
`proxy_next_upstream error timeout`). Every answer must be a 200 with the published bytes.
"""
import collections
import signal
import time

import faultlib as F


def test_kill_a_process_under_public_load(cluster):
    duration = F.LOAD_SECONDS
    victim = cluster.rivers[1]
    current = F.same_bytes(cluster.current_document().body)

    def expected(a):
        wrong = current(a)
        if wrong and a.header("x-cache-status") in ("HIT", "STALE", "UPDATING") and not F.a_published_document(a):
            return ""  # nginx's cache may still hold an earlier version (published less than 60 s ago)
        return wrong

    url = cluster.nginx.url + F.PUBLIC
    cached, uncached = [], []
    load = F.Load()
    for i in range(2):
        load.add(f"cached-{i}", F.public_reader, url, expected, cached)
        load.add(f"uncached-{i}", lambda stop, r=uncached, n=i: F.public_reader(
            stop, url, expected, r, unique_host=True, host_prefix=f"u{n}-"))
    log_before = len(cluster.nginx.access_lines())
    started = time.monotonic()
    old_pid = victim.pid
    load.start()
    try:
        time.sleep(duration * 0.25)
        killed_at = time.monotonic()
        victim.kill(signal.SIGKILL)
        time.sleep(1.0)
        victim.start()
        victim.wait_ready()
        ready_at = time.monotonic()
        ready_wall = time.time()
        time.sleep(max(0.0, started + duration - time.monotonic()))
    finally:
        load.stop()

    answers = cached + uncached
    failed = [a for a in answers if a.note]
    hung = [a for a in answers if a.elapsed > 3]
    entries = cluster.nginx.access_lines()[log_before:]
    victim_addr = f"{F.HOST}:{victim.port}"
    names = {f"{F.HOST}:{r.port}": r.label for r in cluster.rivers}
    served_by = collections.Counter(names.get(e["upstream"][-1], e["upstream"][-1])
                                    for e in entries if e["upstream"] and e["upstream"][0] != "-")
    retried = [e for e in entries if len(e["upstream"]) > 1]
    # nginx skips a process for fail_timeout (5 s) after it failed, then tries it again.
    after_restart = sum(1 for e in entries if e["time"] >= ready_wall + 1 and e["upstream"][-1] == victim_addr)
    summary = (f"{len(answers)} public requests in {duration:.0f} s ({len(cached)} same URL, {len(uncached)} past the cache); "
               f"{victim.label} killed at {killed_at - started:.1f} s, ready again at {ready_at - started:.1f} s; "
               f"answered by: {dict(served_by)}; {len(retried)} retried on another process by nginx; "
               f"{after_restart} answered by {victim.label} after its restart")
    print(summary)

    assert victim.pid != old_pid and victim.alive()
    assert not failed, (f"{len(failed)} of {len(answers)} public requests failed through nginx while {victim.label} "
                        f"was killed and restarted ({summary}):\n{F.summarize(failed)}")
    assert not hung, f"{len(hung)} public requests took over 3 s:\n{F.summarize(hung)}"
    assert len(uncached) >= 20 * duration / 10, f"too little load to say anything: {summary}"
    assert served_by.get(victim.label, 0) > 0, f"no request reached {victim.label} ({victim_addr}) at all: {summary}"
    if started + duration - ready_at >= 8:
        assert after_restart > 0, f"nginx sent nothing to {victim.label} after its restart: {summary}"
