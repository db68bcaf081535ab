"""Releases (issue 27): webhooks in the editor. An admin registers one (the secret shown once),
sends a test event to a local receiver that refuses it at first, sees the failed tries, sends it
again once the receiver works and sees it delivered with a valid signature; a bad address is
refused at its field in words; a viewer sees the webhooks without any control."""
import base64
import hashlib
import hmac
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from conftest import Api, click, css, go, set_value, shot, sign_in, unlabelled_controls, visible, wait


class Receiver:
    """A receiver on 127.0.0.1 that answers `status` (500 until told otherwise) and keeps the calls."""

    def __init__(self):
        self.calls = []
        self.status = 500
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                receiver.calls.append((dict(self.headers), body))
                self.send_response(receiver.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def stop(self):
        self.server.shutdown()


def signed(secret, headers, body):
    key = base64.b64decode(secret[len("whsec_"):])
    content = f"{headers['webhook-id']}.{headers['webhook-timestamp']}.".encode() + body
    expected = "v1," + base64.b64encode(hmac.new(key, content, hashlib.sha256).digest()).decode()
    return expected in headers["webhook-signature"].split()


def test_an_admin_adds_a_webhook_tests_it_and_sends_a_refused_call_again(browser, api):
    receiver = Receiver()
    try:
        sign_in(browser, api, "#/releases")
        click(browser, visible(browser, "#webhooks-link a"))
        visible(browser, "#create-webhook")

        # A bad address is refused at its field, in words.
        set_value(css(browser, "#webhook-url"), "ftp://hooks.example.com/x")
        css(browser, "#create-webhook").click()
        error = visible(browser, ".webhooks .field:has(#webhook-url) .field-error")
        assert "https" in error.text and "/url" not in error.text

        set_value(css(browser, "#webhook-url"), receiver.url)
        set_value(css(browser, "#webhook-description"), "Chat notice")
        css(browser, "#webhook-event-app-archived").click()  # not this one
        css(browser, "#create-webhook").click()
        secret = visible(browser, "#webhook-secret").get_attribute("value")
        assert secret.startswith("whsec_")
        card = visible(browser, "article.webhook")
        assert receiver.url in card.text and "archived" not in card.text
        assert unlabelled_controls(browser) == []
        listed = api.ok("GET", "webhooks")["items"][0]
        assert "app.archived" not in listed["events"] and len(listed["events"]) == 4

        # A test event: the receiver refuses it; the page shows the tries and the answer.
        click(browser, css(browser, "article.webhook button[aria-label^='Send a test event']"))
        row = visible(browser, "article.webhook tr[data-delivery-id]")
        wait(browser, lambda d: "HTTP 500" in css(d, "article.webhook tr[data-delivery-id]").text, timeout=20,
             message="the refused try shown")
        assert receiver.calls and signed(secret, receiver.calls[0][0], receiver.calls[0][1])
        assert json.loads(receiver.calls[0][1])["type"] == "ping"
        shot(browser, "64-webhooks")

        # The receiver works now: sent again from the page, delivered.
        receiver.status = 204
        click(browser, css(browser, "article.webhook tr[data-delivery-id] button"))
        wait(browser, lambda d: css(d, "article.webhook tr[data-delivery-id]").get_attribute("data-state") == "delivered",
             timeout=20, message="delivered after sending again")
        assert "HTTP 204" in css(browser, "article.webhook tr[data-delivery-id]").text
        headers, body = receiver.calls[-1]
        assert signed(secret, headers, body)

        # Paused: the card says so.
        click(browser, css(browser, "article.webhook button[aria-label^='Pause']"))
        wait(browser, lambda d: "paused" in css(d, "article.webhook h3").text, message="paused")
    finally:
        receiver.stop()


def test_a_viewer_sees_webhooks_without_controls(browser, api):
    api.ok("POST", "webhooks", {"url": "http://127.0.0.1:9/nowhere", "description": "Made by an admin"})
    viewer = api.ok("POST", "tokens", {"name": "viewer", "role": "viewer"})["token"]
    sign_in(browser, Api(viewer, api.app), "#/webhooks")
    visible(browser, "article.webhook")
    assert "viewer" in visible(browser, "#webhook-role").text
    assert not browser.find_elements("css selector", "#create-webhook")
    assert not browser.find_elements("css selector", "article.webhook .actions button")
