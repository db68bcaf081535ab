"""Issue 27: a webhook through the three processes, to deploy/webhook-purge/receiver.py (the CDN
purge example, printing what it would purge). At first the receiver holds another secret: it
refuses every call (401), and the deliveries are retried with backoff by whichever process holds
them; once it is started again with the webhook's secret, it checks the signature and purges the
moved channel's tag, once per promotion."""
import base64
import json
import os
import subprocess
import sys
import time

import faultlib as F


def test_a_promotion_reaches_the_purge_receiver_after_refused_tries(cluster):
    base = cluster.rivers[1].url
    app = F.ok(F.call("GET", f"{base}/api/v1/apps/{F.APP}"), "reading the app")
    port = F.free_port()
    made = F.ok(F.call("POST", f"{base}{F.API}/webhooks", {"url": f"http://127.0.0.1:{port}/", "events": ["channel.promoted"]}),
                "registering the webhook")
    hook = made["id"]
    out_path = F.FAULT_DIR / "purge-receiver.out"
    out_path.write_bytes(b"")
    receiver_path = str(F.ROOT / "deploy" / "webhook-purge" / "receiver.py")

    def start(secret):
        env = dict(os.environ, WEBHOOK_SECRET=secret, PURGE="log", LISTEN_PORT=str(port))
        with open(out_path, "ab") as out:
            process = subprocess.Popen([sys.executable, receiver_path], env=env, stdout=out, stderr=subprocess.STDOUT)
        assert F.wait_until(lambda: not F.port_free(port), 10), "the receiver did not listen"
        return process

    receiver = start("whsec_" + base64.b64encode(os.urandom(32)).decode())
    try:
        # Two versions to move between (a move to the version a channel serves moves nothing).
        F.ok(F.call("PATCH", f"{base}{F.API}/screens/{cluster.home}", {"name": f"Home {F.uid(5)}"}), "renaming the home screen")
        number = F.ok(F.call("POST", f"{base}{F.API}/publish", {"note": "purge"}), "publishing")["version"]["number"]
        channel = f"purge{F.uid(4).lower()}"
        # Two promotions (made, then moved), each through another process, while the receiver refuses them.
        F.ok(F.call("PUT", f"{cluster.rivers[0].url}{F.API}/channels/{channel}", {"version": number - 1}), "making a channel")
        F.ok(F.call("PUT", f"{cluster.rivers[2].url}{F.API}/channels/{channel}", {"version": number, "note": "again"}), "moving it")
        time.sleep(2.5)
        receiver.terminate()
        receiver.wait(timeout=10)
        receiver = start(made["secret"])
        tag = f"app-{app['id']}-channel-{channel}"

        def purged():
            lines = [json.loads(line) for line in out_path.read_text().splitlines() if line.startswith("{")]
            return [line for line in lines if tag in line.get("purged", [])]

        assert F.wait_until(lambda: len(purged()) >= 2, 15, 0.2), \
            f"the receiver purged {tag} {len(purged())} times in 15 s: {out_path.read_text()[-1000:]}"
        deliveries = F.ok(F.call("GET", f"{base}{F.API}/webhooks/{hook}/deliveries"), "listing deliveries")["items"]
        assert len(deliveries) == 2 and all(d["state"] == "delivered" for d in deliveries), deliveries
        logs = [F.ok(F.call("GET", f"{base}{F.API}/webhooks/{hook}/deliveries/{d['id']}"), "reading a delivery")["attempt_log"]
                for d in deliveries]
        for log in logs:
            # Refused before: 401 from the receiver with the other secret, or no answer at all
            # for an attempt that fell while the receiver was being restarted (a reset).
            assert log[-1]["status"] == 204 and all(a["status"] in (401, None) and a["error"] for a in log[:-1]), log
            assert len(log) >= 2, f"refused first, then delivered: {log}"
        time.sleep(1.5)
        assert len(purged()) == 2, f"each promotion is purged once: {out_path.read_text()[-1000:]}"
    finally:
        receiver.terminate()
        receiver.wait(timeout=10)
        F.call("DELETE", f"{base}{F.API}/webhooks/{hook}")
