#!/usr/bin/env python3
"""A webhook receiver that purges a CDN by cache tag when Rivers says a channel moved.

Rivers tags every public answer (`Surrogate-Key` and `Cache-Tag`: `app-{id}`, `app-{id}-v{n}`,
`app-{id}-channel-{name}`, `app-{id}-rules`) and sends each webhook event with the tags to purge
(`data.purge_tags`). This receiver checks the Standard Webhooks signature, drops duplicates (by
`webhook-id`; a copy that comes while the first is purging answers 409, and its retry 204) and stale calls (timestamp more than 5 minutes off), and purges those tags:

    WEBHOOK_SECRET=whsec_...  PURGE=cloudflare CLOUDFLARE_ZONE=... CLOUDFLARE_TOKEN=...  ./receiver.py
    WEBHOOK_SECRET=whsec_...  PURGE=fastly FASTLY_SERVICE=... FASTLY_TOKEN=...          ./receiver.py
    WEBHOOK_SECRET=whsec_...  PURGE=log                                                 ./receiver.py

`PURGE=log` only prints what it would purge, one JSON line per purge on stdout (nginx's open
source cache cannot purge by tag: there the channel's entries age out within their max-age of 60
seconds). Listens on `LISTEN_HOST`:`LISTEN_PORT` (127.0.0.1:8787); put it behind TLS, since Rivers
only calls https endpoints. Python 3 standard library only.
"""
import base64
import hashlib
import hmac
import json
import os
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOLERANCE = 300  # seconds
# Calls are answered on threads of their own (deliveries come at once from several processes):
# each line is written whole, under this lock, or two lines can run into one.
OUTPUT = threading.Lock()


def say(text, stream=None):
    stream = stream or sys.stdout
    with OUTPUT:
        stream.write(text + "\n")
        stream.flush()

EVENTS = {"version.published", "channel.promoted", "channel.rolled_back", "schedule.fired", "app.archived"}


def keys(secrets):
    return [base64.b64decode(s[len("whsec_"):]) for s in secrets if s.startswith("whsec_")]


def verify(secret_keys, msg_id, timestamp, body, signature_header):
    """True when one of the `v1,` signatures is the HMAC of `id.timestamp.body` under a key."""
    signed = f"{msg_id}.{timestamp}.".encode() + body
    expected = [base64.b64encode(hmac.new(k, signed, hashlib.sha256).digest()).decode() for k in secret_keys]
    for part in signature_header.split():
        version, _, value = part.partition(",")
        if version == "v1" and any(hmac.compare_digest(value, e) for e in expected):
            return True
    return False


def purge(tags):
    kind = os.environ.get("PURGE", "log")
    if kind == "cloudflare":
        zone, token = os.environ["CLOUDFLARE_ZONE"], os.environ["CLOUDFLARE_TOKEN"]
        request = urllib.request.Request(f"https://api.cloudflare.com/client/v4/zones/{zone}/purge_cache",
                                         data=json.dumps({"tags": tags}).encode(), method="POST",
                                         headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        urllib.request.urlopen(request, timeout=10).read()
    elif kind == "fastly":
        service, token = os.environ["FASTLY_SERVICE"], os.environ["FASTLY_TOKEN"]
        request = urllib.request.Request(f"https://api.fastly.com/service/{service}/purge", method="POST",
                                         headers={"Fastly-Key": token, "Surrogate-Key": " ".join(tags)})
        urllib.request.urlopen(request, timeout=10).read()
    say(json.dumps({"purged": tags, "via": kind}))


class Handler(BaseHTTPRequestHandler):
    seen = {}  # webhook-id → when, for dropping redeliveries of what was done
    in_progress = set()  # webhook-ids being purged now
    seen_lock = threading.Lock()  # shared by the threads answering calls, for both

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length > 1 << 20:
            return self.answer(413)
        body = self.rfile.read(length)
        msg_id = self.headers.get("webhook-id", "")
        timestamp = self.headers.get("webhook-timestamp", "")
        if not timestamp.isdigit() or abs(time.time() - int(timestamp)) > TOLERANCE:
            return self.answer(400)
        if not verify(self.server.keys, msg_id, timestamp, body, self.headers.get("webhook-signature", "")):
            return self.answer(401)
        # Checked and claimed under the lock: the same message delivered twice at once (a lease
        # that ended mid-call) purges once; the copy that finds it in progress fails, and its
        # retry finds it done.
        with self.seen_lock:
            already = 204 if msg_id in self.seen else 409 if msg_id in self.in_progress else None
            if already is None:
                self.in_progress.add(msg_id)
        if already is not None:
            return self.answer(already)
        try:
            event = json.loads(body)
            tags = (event.get("data") or {}).get("purge_tags") or []
            if event.get("type") in EVENTS and tags:
                try:
                    purge(tags)
                except Exception as error:  # the CDN failed: answer 502, and Rivers tries again later
                    say(f"purge failed: {error}", sys.stderr)
                    return self.answer(502)
            with self.seen_lock:
                self.seen[msg_id] = time.time()
                for old in [k for k, t in self.seen.items() if t < time.time() - 86400]:
                    del self.seen[old]
        finally:
            with self.seen_lock:
                self.in_progress.discard(msg_id)
        self.answer(204)

    def answer(self, status):
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def main():
    secrets = [s for s in os.environ.get("WEBHOOK_SECRET", "").split() if s]
    if not secrets:
        sys.exit("WEBHOOK_SECRET is required (the secret Rivers showed; during a rotation, both, space-separated)")
    server = ThreadingHTTPServer((os.environ.get("LISTEN_HOST", "127.0.0.1"), int(os.environ.get("LISTEN_PORT", "8787"))), Handler)
    server.keys = keys(secrets)
    say(json.dumps({"listening": server.server_address[1]}))
    server.serve_forever()


if __name__ == "__main__":
    main()
