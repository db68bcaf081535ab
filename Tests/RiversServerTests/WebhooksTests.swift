import AsyncHTTPClient
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import RiversCore
import RiversServices
@testable import RiversStore
import Testing

@testable import RiversServer

/// A local receiver of webhooks: answers the first `failures` calls with 500, then 204, and keeps
/// what it was sent. An endless one answers 200 with a body that never ends, counting what it
/// managed to write.
final class WebhookReceiver: Sendable {
    struct Call: Sendable {
        var headers: HTTPFields
        var body: String
        /// The port the call came from: one per connection.
        var peerPort: Int?
    }

    /// The receiver's request context, which knows the caller's port.
    struct Context: RequestContext {
        var coreContext: CoreRequestContextStorage
        let peerPort: Int?
        init(source: ApplicationRequestContextSource) {
            coreContext = .init(source: source)
            peerPort = source.channel.remoteAddress?.port
        }
    }

    let calls = NIOLockedValueBox<[Call]>([])
    let boundPort = NIOLockedValueBox<Int?>(nil)
    let failures: Int
    let task = NIOLockedValueBox<Task<Void, any Error>?>(nil)
    let endless: Bool
    /// How long each call waits before its answer.
    let delay: Duration
    let answerBytesWritten = NIOLockedValueBox(0)

    init(failures: Int, endless: Bool = false, delay: Duration = .zero) { (self.failures, self.endless, self.delay) = (failures, endless, delay) }

    func start() async throws -> String {
        let router = Router(context: Context.self)
        router.post("hook") { [self] request, context -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            let n = calls.withLockedValue { calls in
                calls.append(Call(headers: request.headers, body: String(buffer: body), peerPort: context.peerPort))
                return calls.count
            }
            if delay > .zero { try await Task.sleep(for: delay) }
            if endless {
                return Response(status: .ok, body: ResponseBody { [self] writer in
                    let chunk = ByteBuffer(repeating: UInt8(ascii: "x"), count: 64 * 1024)
                    while !Task.isCancelled {
                        try await writer.write(chunk)
                        answerBytesWritten.withLockedValue { $0 += chunk.readableBytes }
                    }
                })
            }
            return Response(status: n <= failures ? .internalServerError : .noContent)
        }
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { [self] channel in boundPort.withLockedValue { $0 = channel.localAddress?.port } }, logger: testLogger)
        task.withLockedValue { $0 = Task { try await app.runService() } }
        for _ in 0..<200 where boundPort.withLockedValue({ $0 }) == nil { try await Task.sleep(for: .milliseconds(20)) }
        let port = try #require(boundPort.withLockedValue { $0 })
        return "http://127.0.0.1:\(port)/hook"
    }

    func stop() { task.withLockedValue { $0?.cancel() } }
}

/// The outbox of one test: hands out nothing, keeps the attempts recorded.
private final class RecordingOutbox: WebhookOutbox {
    struct Attempt { var status: Int?; var error: String; var delivered: Bool; var nextAttemptAt: Date? }
    let attempts = NIOLockedValueBox<[Attempt]>([])
    func claimDueDeliveries(limit: Int, perApp: Int, inFlight: [String: Int], lease: Int) async throws -> [DueDelivery] { [] }
    func recordAttempt(_ delivery: DueDelivery, status: Int?, error: String, durationMs: Int, delivered: Bool, nextAttemptAt: Date?) async throws {
        attempts.withLockedValue { $0.append(Attempt(status: status, error: error, delivered: delivered, nextAttemptAt: nextAttemptAt)) }
    }
    func sweepDeliveries() async throws {}
}

/// Closes a connection as soon as it receives anything (a receiver that took a request and
/// answered nothing), counting the requests it took.
private final class CloseOnRead: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let reads: NIOLockedValueBox<Int>
    init(reads: NIOLockedValueBox<Int>) { self.reads = reads }
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        reads.withLockedValue { $0 += 1 }
        context.close(promise: nil)
    }
}

@Suite("Webhooks", .serialized)
struct WebhooksTests {
    @Test("endpoints are https, never in a private range unless the operator allows it; plain http only to loopback then")
    func targets() async {
        for url in [
            "http://hooks.example.com/x", "https://10.0.0.1/x", "https://localhost/x", "https://[::1]/x", "https://169.254.169.254/latest",
            "https://192.168.1.1/", "https://172.20.0.1/", "https://100.64.0.1/", "https://0.0.0.0/", "https://[::ffff:10.0.0.1]/",
            "https://[fd00::1]/", "https://[fe80::1]/", "https://user:pass@hooks.example.com/", "ftp://hooks.example.com/",
            "https://db.internal/x", "https://printer.local/x", "https://intranet/x", "not a url",
            // IPv4 as resolvers also read it, and a name's final dot.
            "https://127.1/", "https://0177.0.0.1/", "https://0x7f.0.0.1/", "https://2130706433/", "https://127.000.000.001/",
            "https://localhost./", "https://10.1/", "https://192.88.99.1/",
            // IPv4 inside IPv6 (6to4, translated), and the special-purpose IPv6 ranges.
            "https://[2002:7f00:1::]/", "https://[2002:a00:1::1]/", "https://[::ffff:0:7f00:1]/", "https://[64:ff9b:1::7f00:1]/",
            "https://[100::1]/", "https://[2001::1]/", "https://[2001:10::1]/", "https://[2001:db8::1]/", "https://[3fff::1]/",
            "https://[5f00::1]/", "https://[::ff:1:2]/",
        ] {
            #expect(WebhookTarget.problem(url, allowPrivate: false) != nil, "\(url) must be refused")
        }
        #expect(WebhookTarget.problem("https://hooks.example.com/rivers?k=1", allowPrivate: false) == nil)
        #expect(WebhookTarget.problem("https://93.184.216.34/x", allowPrivate: false) == nil)
        #expect(WebhookTarget.problem("https://[2606:2800:220:1::1]/x", allowPrivate: false) == nil)
        // Public IPv4 inside IPv6 stays public; a numeric-looking name part is still a name.
        #expect(WebhookTarget.problem("https://[64:ff9b::5db8:d822]/x", allowPrivate: false) == nil)
        #expect(WebhookTarget.problem("https://[2002:5db8:d822::1]/x", allowPrivate: false) == nil)
        #expect(WebhookTarget.problem("https://hooks.example.com./x", allowPrivate: false) == nil)
        #expect(WebhookTarget.problem("https://1.example.com/x", allowPrivate: false) == nil)
        // Allowed private networks (development): http to loopback only.
        #expect(WebhookTarget.problem("http://127.0.0.1:9000/hook", allowPrivate: true) == nil)
        #expect(WebhookTarget.problem("http://localhost:9000/hook", allowPrivate: true) == nil)
        #expect(WebhookTarget.problem("http://10.0.0.1/hook", allowPrivate: true) != nil)
        #expect(WebhookTarget.problem("https://10.0.0.1/hook", allowPrivate: true) == nil)
        // Checked again when sending, against every address the name resolves to.
        if case .refused(let why) = await WebhookDeliverer.connection(for: "https://localhost/x", allowPrivate: false) {
            #expect(why.hasPrefix("localhost resolves to an address in a private or reserved range"), "\(why)")
        } else {
            Issue.record("localhost was not refused")
        }
        #expect(await WebhookDeliverer.connection(for: "https://127.0.0.1/x", allowPrivate: false) == .refused("127.0.0.1 resolves to an address in a private or reserved range (127.0.0.1)"))
        #expect(await WebhookDeliverer.connection(for: "https://localhost/x", allowPrivate: true) == .direct)
        // A public address is called as it is; a host name at the address checked for it (pinned:
        // the client is told it, so a second lookup cannot answer otherwise).
        #expect(await WebhookDeliverer.connection(for: "https://93.184.216.34/x", allowPrivate: false) == .direct)
        #expect(await WebhookDeliverer.connection(for: "https://[2606:2800:220:1::1]/x", allowPrivate: false) == .direct)
        #expect(WebhookDeliverer.configuration(dnsOverride: ["hooks.example.com": "93.184.216.34"]).dnsOverride == ["hooks.example.com": "93.184.216.34"])
        #expect(IPAddress("2001:db8::1")?.text == "2001:db8::1" && IPAddress("93.184.216.34")?.text == "93.184.216.34")
        #expect(WebhookRetry(base: 5).delay(afterAttempt: 1) == 5 && WebhookRetry(base: 5).delay(afterAttempt: 3) == 20)
        #expect(WebhookRetry(base: 5).delay(afterAttempt: 40) == 3600)
        let created = Date(timeIntervalSince1970: 0)
        #expect(WebhookRetry().nextAttempt(afterAttempt: 3, created: created, now: created.addingTimeInterval(86_390)) == nil)
    }

    @Test("a webhook is made with its secret shown once, checked field by field, changed, rotated and removed")
    func api() async throws {
        try await withAPI { api in
            let made = try await api.request(.post, "webhooks", json: ["url": "https://hooks.example.com/rivers", "description": "CDN purge"])
            #expect(made.status == .created, "\(made.text)")
            #expect(made["secret"]?.stringValue?.hasPrefix("whsec_") == true && made.headers[.cacheControl] == "no-store")
            #expect(made["events"]?.arrayValue?.count == WebhookEvent.all.count)
            let id = try #require(made["id"]?.stringValue)
            let list = try await api.request(.get, "webhooks")
            #expect(list["total"] == 1 && list.json.at("items", 0)?["secret"] == nil)
            let bad = try await api.request(.post, "webhooks", json: ["url": "ftp://x.example.com", "events": ["version.published", "nope"], "color": 1])
            #expect(Set(bad.pointers) == ["/url", "/events/1", "/color"], "\(bad.text)")
            let patched = try await api.request(.patch, "webhooks/\(id)", json: ["events": ["schedule.fired"], "enabled": false], headers: [.ifMatch: made.etag ?? ""])
            #expect(patched.status == .ok && patched["enabled"] == false && patched["events"] == ["schedule.fired"], "\(patched.text)")
            #expect(try await api.request(.patch, "webhooks/\(id)", json: ["enabled": true], headers: [.ifMatch: made.etag ?? ""]).status == .preconditionFailed)
            let rotated = try await api.request(.post, "webhooks/\(id)/rotate-secret")
            #expect(rotated.status == .ok && rotated["secret"] != made["secret"] && rotated["previous_secret_until"]?.stringValue != nil)
            #expect(try await api.request(.get, "audit?kind=webhook")["total"] == 3)
            #expect(try await api.request(.delete, "webhooks/\(id)").status == .noContent)
            #expect(try await api.request(.get, "webhooks/\(id)").status == .notFound)
            #expect(try await api.request(.get, "webhooks/not-an-id/deliveries").status == .notFound)
        }
    }

    @Test("secrets stored before WEBHOOK_SECRET_KEY was set are sealed by one command, once, with no new revision, and still sign")
    func sealingStoredSecrets() async throws {
        try await withAPI { api in
            // Made and rotated by a server without the key: stored as they are.
            let plain = WebhookService(storage: api.store, seal: .none)
            let (first, firstSecret) = try await plain.create(
                appId: api.app.id, url: "https://hooks.example.com/a", description: "", events: ["version.published"], createdBy: "ann")
            let (_, rotatedSecret) = try await plain.rotateSecret(appId: api.app.id, id: first.id)
            let (second, secondSecret) = try await plain.create(
                appId: api.app.id, url: "https://hooks.example.com/b", description: "", events: ["version.published"], createdBy: "ann")
            func stored(_ id: String) async throws -> StoredWebhookSecrets? {
                for try await (id, appId, secret, previous) in try await api.store.client.query(
                    "SELECT id::text, app_id::text, secret, previous_secret FROM webhooks WHERE id = \(id)::uuid", logger: testLogger
                ).decode((String, String, String, String?).self) {
                    return StoredWebhookSecrets(id: id, appId: appId, secret: secret, previous: previous)
                }
                return nil
            }
            let before = try #require(try await stored(first.id))
            #expect(before.secret == rotatedSecret && before.previous == firstSecret)

            // A write against secrets that changed meanwhile does not go through.
            var stale = before
            stale.secret = "whsec_stale"
            #expect(try await api.store.replaceWebhookSecrets(stale, secret: "x", previous: nil) == false)

            #expect(try await WebhookService.sealStoredSecrets(in: api.store, with: testWebhookSeal, appId: api.app.id).sealed == 2)
            let after = try #require(try await stored(first.id))
            #expect(WebhookSecretSeal.isSealed(after.secret) && after.previous.map(WebhookSecretSeal.isSealed) == true)
            #expect(try testWebhookSeal.open(after.secret, appId: api.app.id) == rotatedSecret)
            #expect(try after.previous.map { try testWebhookSeal.open($0, appId: api.app.id) } == firstSecret)
            let other = try #require(try await stored(second.id))
            #expect(try testWebhookSeal.open(other.secret, appId: api.app.id) == secondSecret && other.previous == nil)
            // Again: nothing left to seal. Without a key: nothing done.
            #expect(try await WebhookService.sealStoredSecrets(in: api.store, with: testWebhookSeal, appId: api.app.id) == .init())
            #expect(try await WebhookService.sealStoredSecrets(in: api.store, with: .none, appId: api.app.id) == .init())

            // A change of key: the old one kept as the previous key, the command seals both webhooks again.
            let changed = try WebhookSecretSeal(
                base64: Data(repeating: 9, count: 32).base64EncodedString(), previous: Data(repeating: 7, count: 32).base64EncodedString())
            #expect(try await WebhookService.sealStoredSecrets(in: api.store, with: changed, appId: api.app.id).sealed == 2)
            let again = try #require(try await stored(first.id))
            #expect(again.secret.hasPrefix(changed.currentPrefix) && again.previous?.hasPrefix(changed.currentPrefix) == true)
            #expect(try changed.open(again.secret, appId: api.app.id) == rotatedSecret)
            #expect(try await WebhookService.sealStoredSecrets(in: api.store, with: changed, appId: api.app.id) == .init())

            // A key that opens neither (the one they were sealed with is not given): both are named
            // and left as they are, while a secret stored in clear is still sealed.
            let (third, thirdSecret) = try await plain.create(
                appId: api.app.id, url: "https://hooks.example.com/c", description: "", events: ["version.published"], createdBy: "ann")
            let stranger = try WebhookSecretSeal(base64: Data(repeating: 5, count: 32).base64EncodedString())
            let outcome = try await WebhookService.sealStoredSecrets(in: api.store, with: stranger, appId: api.app.id)
            #expect(outcome.sealed == 1 && outcome.unopenableCount == 2 && Set(outcome.unopenable.map(\.id)) == [first.id, second.id], "\(outcome)")
            #expect(try await stored(first.id) == again)
            #expect(try await stored(third.id).map { try stranger.open($0.secret, appId: api.app.id) } == thirdSecret)

            // What a process says when it starts: four secrets are sealed (the first webhook's two,
            // the second's, the third's), by two keys; what its keys do not open, and what is not sealed.
            let noKey = try await WebhookService.keyWarnings(in: api.store, seal: .none, appId: api.app.id)
            #expect(noKey.count == 1 && noKey[0].hasPrefix("4 stored webhook secret(s) are sealed, and WEBHOOK_SECRET_KEY is not set"), "\(noKey)")
            let oneUnopened = try await WebhookService.keyWarnings(in: api.store, seal: changed, appId: api.app.id)
            #expect(oneUnopened.count == 1 && oneUnopened[0].hasPrefix("1 stored webhook secret(s) are sealed with a key that neither"), "\(oneUnopened)")
            let both = try WebhookSecretSeal(base64: Data(repeating: 5, count: 32).base64EncodedString(), previous: Data(repeating: 9, count: 32).base64EncodedString())
            #expect(try await WebhookService.keyWarnings(in: api.store, seal: both, appId: api.app.id).isEmpty)
            _ = try await plain.create(appId: api.app.id, url: "https://hooks.example.com/d", description: "", events: ["version.published"], createdBy: "ann")
            #expect(try await WebhookService.keyWarnings(in: api.store, seal: both, appId: api.app.id) == [
                "1 stored webhook secret(s) are not sealed: run `rivers webhook seal-secrets` to seal them with WEBHOOK_SECRET_KEY"
            ])
            // Every app's (what `rivers serve` asks): at least this app's four.
            let everyApp = try await WebhookService.keyWarnings(in: api.store, seal: .none)
            #expect(everyApp.first.flatMap { Int($0.prefix { $0.isNumber }) }.map { $0 >= 4 } == true, "\(everyApp)")

            // A previous secret whose overlap has ended signs nothing: not counted, and dropped
            // (not opened) when the webhook is sealed, even sealed with a key no longer given.
            try await api.store.client.query(
                "UPDATE webhooks SET previous_secret = 'sealed1:0123456789abcdef:AAAA', previous_secret_expires_at = now() - interval '1 hour' WHERE id = \(third.id)::uuid",
                logger: testLogger)
            #expect(try await WebhookService.keyWarnings(in: api.store, seal: both, appId: api.app.id).count == 1, "only the unsealed one")
            let dropped = try await WebhookService.sealStoredSecrets(in: api.store, with: both, appId: api.app.id)
            #expect(dropped.unopenableCount == 0 && dropped.sealed == 4, "all four webhooks now under the current key: \(dropped)")
            let thirdNow = try #require(try await stored(third.id))
            #expect(thirdNow.previous == nil)
            #expect(try both.open(thirdNow.secret, appId: api.app.id) == thirdSecret)

            // The webhook is unchanged (same revision); the audit log says what happened.
            let hook = try await api.request(.get, "webhooks/\(first.id)")
            #expect(hook["revision"] == 2, "\(hook.text)")
            let audit = try await api.request(.get, "audit?kind=webhook")
            let actions = audit["items"]?.arrayValue?.compactMap { $0["action"]?.stringValue } ?? []
            #expect(actions.filter { $0 == "seal-secret" }.count == 10 && actions.filter { $0 == "rotate-secret" }.count == 1, "\(actions)")
            // A write that keeps the revision and both secrets seals nothing: no entry.
            try await api.store.client.query("UPDATE webhooks SET updated_at = now() WHERE id = \(first.id)::uuid", logger: testLogger)
            #expect(try await api.request(.get, "audit?kind=webhook")["total"] == audit["total"])
        }
    }

    @Test("a delivery whose secret cannot be opened, or that has no secret to sign with, is never sent; the attempt says why and is tried again")
    func unsignableDeliveriesAreNotSent() async throws {
        let receiver = WebhookReceiver(failures: 0)
        let url = try await receiver.start()
        defer { receiver.stop() }
        let clients = WebhookDeliverer.Clients()
        let appId = UUIDText.random()
        let sealed = try testWebhookSeal.seal("whsec_" + Data(repeating: 3, count: 32).base64EncodedString(), appId: appId)
        func delivery(_ secrets: [String]) -> DueDelivery {
            DueDelivery(id: "msg_1", appId: appId, url: url, payload: "{}", secrets: secrets, attempt: 1, createdAt: Date(), enabled: true)
        }
        let outbox = RecordingOutbox()
        // No key in this process for a sealed secret; a row with no `whsec_` secret at all.
        await WebhookDeliverer(store: outbox, logger: testLogger, allowPrivate: true, seal: .none).send(delivery([sealed]), clients)
        await WebhookDeliverer(store: outbox, logger: testLogger, allowPrivate: true, seal: testWebhookSeal).send(delivery(["not-a-secret"]), clients)
        // Refused before its host is looked up (private addresses refused, so the host is
        // resolved and checked): `.invalid` never resolves, so a lookup would have been the
        // attempt's error instead of the seal's.
        var unresolvable = delivery([sealed])
        unresolvable.url = "https://hooks.rivers.invalid/hook"
        await WebhookDeliverer(store: outbox, logger: testLogger, allowPrivate: false, seal: .none).send(unresolvable, clients)
        // With the key, the same sealed secret signs and is sent.
        await WebhookDeliverer(store: outbox, logger: testLogger, allowPrivate: true, seal: testWebhookSeal).send(delivery([sealed]), clients)
        // A previous secret (a rotation's overlap) sealed with a key this process lacks does not
        // hold the delivery back: it is signed with the current secret alone.
        let stranger = try WebhookSecretSeal(base64: Data(repeating: 5, count: 32).base64EncodedString())
        let lostPrevious = try stranger.seal("whsec_" + Data(repeating: 4, count: 32).base64EncodedString(), appId: appId)
        await WebhookDeliverer(store: outbox, logger: testLogger, allowPrivate: true, seal: testWebhookSeal).send(delivery([sealed, lostPrevious]), clients)
        // The current secret must open, whatever the previous one does.
        await WebhookDeliverer(store: outbox, logger: testLogger, allowPrivate: true, seal: testWebhookSeal).send(delivery([lostPrevious, sealed]), clients)
        await clients.shutdown()
        let attempts = outbox.attempts.withLockedValue { $0 }
        let unknownKey = try #require(throws: WebhookSecretSeal.Failure.self) { try testWebhookSeal.open(lostPrevious, appId: appId) }
        #expect(attempts.map(\.error) == [
            WebhookSecretSeal.Failure.noKey.description, "the webhook has no secret to sign with", WebhookSecretSeal.Failure.noKey.description, "", "",
            unknownKey.description,
        ])
        #expect(attempts.enumerated().allSatisfy { [3, 4].contains($0.offset) || ($0.element.status == nil && !$0.element.delivered && $0.element.nextAttemptAt != nil) })
        #expect(attempts[3].delivered && attempts[3].status == 204 && attempts[4].delivered && attempts[4].status == 204)
        let calls = receiver.calls.withLockedValue { $0 }
        #expect(calls.count == 2, "only the signed deliveries were sent")
        // Each was signed once, with the current secret.
        let key = SymmetricKey(data: Data(repeating: 3, count: 32))
        for call in calls {
            let timestamp = try #require(call.headers[HTTPField.Name("webhook-timestamp")!])
            let expected = HMAC<SHA256>.authenticationCode(for: Array("msg_1.\(timestamp).\(call.body)".utf8), using: key)
            #expect(call.headers[HTTPField.Name("webhook-signature")!] == "v1," + Data(expected).base64EncodedString())
        }
    }

    @Test("a secret this process cannot open is logged once per app every 10 minutes, not on every delivery")
    func secretWarningsAreSaidOnce() throws {
        let lines = NIOLockedValueBox<[String]>([])
        let logger = Logger(label: "rivers") { label in
            JSONLogHandler(label: label) { line in lines.withLockedValue { $0.append(String(decoding: line, as: UTF8.self)) } }
        }
        func said(_ text: String) -> Int { lines.withLockedValue { $0.filter { $0.contains(text) }.count } }
        let (first, second) = (UUIDText.random(), UUIDText.random())
        func delivery(_ appId: String, _ secrets: [String]) -> DueDelivery {
            DueDelivery(id: "msg_1", appId: appId, url: "https://hooks.example.com/x", payload: "{}", secrets: secrets, attempt: 1, createdAt: Date(), enabled: true)
        }
        func sealed(_ appId: String) throws -> String { try testWebhookSeal.seal("whsec_" + Data(repeating: 3, count: 32).base64EncodedString(), appId: appId) }
        // No key here for a sealed current secret: refused every time, said once per app.
        let keyless = WebhookDeliverer(store: RecordingOutbox(), logger: logger, seal: .none)
        for _ in 0..<3 {
            if case .success = keyless.signedRequest(delivery(first, [try sealed(first)])) { Issue.record("signed without its key") }
        }
        #expect(said("cannot be signed") == 1)
        _ = keyless.signedRequest(delivery(second, [try sealed(second)]))
        #expect(said("cannot be signed") == 2, "another app's is news")
        // A previous secret sealed with a key this process lacks: left out every time, said once.
        let stranger = try WebhookSecretSeal(base64: Data(repeating: 5, count: 32).base64EncodedString())
        let lostPrevious = try stranger.seal("whsec_" + Data(repeating: 4, count: 32).base64EncodedString(), appId: first)
        let keyed = WebhookDeliverer(store: RecordingOutbox(), logger: logger, seal: testWebhookSeal)
        for _ in 0..<3 {
            if case .success(let secrets) = keyed.secrets(of: delivery(first, [try sealed(first), lostPrevious])) {
                #expect(secrets.count == 1)
            } else {
                Issue.record("the current secret did not open")
            }
        }
        #expect(said("previous secret cannot be opened") == 1)
        // Once the interval has passed, it is said again.
        let gate = WarningGate(interval: .seconds(600))
        let now = ContinuousClock.now
        #expect(gate.allows("k", now: now) && !gate.allows("k", now: now + .seconds(599)) && gate.allows("k", now: now + .seconds(600)))
    }

    @Test("a receiver's answer is read to 64 KiB at most: an endless one is cut off and its status kept")
    func longAnswersAreCutOff() async throws {
        let receiver = WebhookReceiver(failures: 0, endless: true)
        let url = try await receiver.start()
        defer { receiver.stop() }
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: WebhookDeliverer.configuration())
        let request = try HTTPClient.Request(url: url, method: .POST, body: .bytes(Array("{}".utf8)))
        let started = ContinuousClock.now
        let outcome = await WebhookDeliverer.call(request, with: http)
        let elapsed = ContinuousClock.now - started
        try await http.shutdown()
        #expect(outcome.status == 200 && outcome.error == "" && outcome.headSent)
        // Without the cut-off the call reads until its 10-second deadline.
        #expect(elapsed < .seconds(5), "\(elapsed)")
        let written = receiver.answerBytesWritten.withLockedValue { $0 }
        #expect(written >= 64 * 1024, "the receiver did answer at length: \(written)")
    }

    @Test("a call pinned to the address checked for its host name reaches that address without looking the name up, however the name is written")
    func pinnedCalls() async throws {
        let receiver = WebhookReceiver(failures: 0)
        let url = try await receiver.start()
        defer { receiver.stop() }
        let port = try #require(URLComponents(string: url)?.port)
        // `.invalid` never resolves: only the pin can take a call there. The pin's key is the
        // name as `hostAsCalled` reads it, which must be the client's own in every spelling.
        let spellings = [
            "hooks.rivers.invalid", "Hooks.RIVERS.invalid", "xn--bcher-kva.rivers.invalid", "bücher.rivers.invalid", "hooks.rivers.invalid.",
        ]
        for spelling in spellings {
            let target = "http://\(spelling):\(port)/hook"
            let name = try #require(WebhookDeliverer.hostAsCalled(target), "\(spelling)")
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: WebhookDeliverer.configuration(dnsOverride: [name: "127.0.0.1"]))
            var request = HTTPClientRequest(url: target)
            request.method = .POST
            request.body = .bytes(ByteBuffer(string: "{}"))
            let status = try? await client.execute(request, timeout: .seconds(5)).status
            try await client.shutdown()
            #expect(status == .noContent, "\(spelling) (pinned as \(name)) did not reach the pinned address")
        }
        #expect(receiver.calls.withLockedValue { $0.count } == spellings.count)

        // A host's addresses are tried in turn while none took the request (nothing listens on
        // ::1 here), and a refused one is left at once (a client retrying connections would wait
        // out its connect timeout of 5 s).
        let request = try HTTPClient.Request(url: "http://hooks.rivers.invalid:\(port)/hook", method: .POST, body: .byteBuffer(ByteBuffer(string: "{}")))
        let clients = WebhookDeliverer.Clients()
        let started = ContinuousClock.now
        let outcome = await WebhookDeliverer.call(
            request, connection: .pinned(host: "hooks.rivers.invalid", addresses: ["::1", "127.0.0.1"]), clients: clients)
        #expect(outcome.status == 204 && outcome.error.isEmpty, "\(outcome)")
        #expect(ContinuousClock.now - started < .seconds(4), "a refused address held the attempt")
        #expect(receiver.calls.withLockedValue { $0.count } == spellings.count + 1)

        // An address that took the request and closed without an answer is not followed by the
        // next one: the receiver there may have acted on it (one attempt, one delivery at most).
        let silentReads = NIOLockedValueBox(0)
        let silent = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(CloseOnRead(reads: silentReads)) }
            }
            .bind(host: "127.0.0.2", port: port).get()
        defer { silent.close(promise: nil) }
        let dropped = await WebhookDeliverer.call(
            request, connection: .pinned(host: "hooks.rivers.invalid", addresses: ["127.0.0.2", "127.0.0.1"]), clients: clients)
        #expect(dropped.status == nil && !dropped.error.isEmpty, "\(dropped)")
        #expect(silentReads.withLockedValue { $0 } == 1)
        #expect(receiver.calls.withLockedValue { $0.count } == spellings.count + 1, "the request went to a second address")
        await clients.shutdown()
    }

    @Test("deliveries pinned to one address of one host share its connection; idle pinned clients are let go, and past the limit a call gets a client of its own")
    func pinnedConnectionsAreReused() async throws {
        let receiver = WebhookReceiver(failures: 0)
        let url = try await receiver.start()
        defer { receiver.stop() }
        let port = try #require(URLComponents(string: url)?.port)
        let request = try HTTPClient.Request(url: "http://hooks.rivers.invalid:\(port)/hook", method: .POST, body: .byteBuffer(ByteBuffer(string: "{}")))
        let pin = WebhookDeliverer.Connection.pinned(host: "hooks.rivers.invalid", addresses: ["127.0.0.1"])
        /// The client ports the receiver saw for the calls `body` made: one per connection.
        func ports(_ body: () async -> Void) async -> [Int?] {
            let before = receiver.calls.withLockedValue { $0.count }
            await body()
            return receiver.calls.withLockedValue { $0[before...].map(\.peerPort) }
        }

        let kept = WebhookDeliverer.Clients()
        let three = await ports {
            for _ in 0..<3 { #expect(await WebhookDeliverer.call(request, connection: pin, clients: kept).status == 204) }
        }
        #expect(three.count == 3 && three[0] != nil && Set(three).count == 1, "one connection for the three: \(three)")
        #expect(kept.pinnedCount == 1)
        await kept.closeIdle()
        #expect(kept.pinnedCount == 1, "used a moment ago: kept")
        await kept.shutdown()

        // Idle for its limit (zero here): shut down, and the next call opens a connection anew.
        let brief = WebhookDeliverer.Clients(idleLimit: .zero)
        let twice = await ports {
            #expect(await WebhookDeliverer.call(request, connection: pin, clients: brief).status == 204)
            await brief.closeIdle()
            #expect(brief.pinnedCount == 0)
            #expect(await WebhookDeliverer.call(request, connection: pin, clients: brief).status == 204)
        }
        #expect(twice.count == 2 && Set(twice).count == 2, "\(twice)")
        await brief.shutdown()

        // No room to keep one: each call has a client, and a connection, of its own.
        let none = WebhookDeliverer.Clients(maxPinned: 0)
        let own = await ports {
            for _ in 0..<2 { #expect(await WebhookDeliverer.call(request, connection: pin, clients: none).status == 204) }
        }
        #expect(own.count == 2 && Set(own).count == 2 && none.pinnedCount == 0, "\(own)")
        await none.shutdown()
    }

    @Test("deliveries are shared between apps: one app's backlog to a slow receiver holds back no other app's")
    func deliveriesAreSharedBetweenApps() async throws {
        // A receiver that answers after 8 seconds, and a quick one.
        let slow = WebhookReceiver(failures: 0, delay: .seconds(8))
        let slowURL = try await slow.start()
        let quick = WebhookReceiver(failures: 0)
        let quickURL = try await quick.start()
        defer { slow.stop(); quick.stop() }
        let clients = WebhookDeliverer.Clients()
        try await withAPI { api in
            let other = try await AppService(storage: api.store).create(slug: "w-\(UUIDText.random().prefix(8))", name: "Another app")
            let hook = try await api.request(.post, "webhooks", json: ["url": .string(slowURL)])
            let hookId = try #require(hook["id"]?.stringValue, "\(hook.text)")
            for _ in 0..<30 { #expect(try await api.request(.post, "webhooks/\(hookId)/ping").status == .accepted) }
            // The other app's delivery comes after all thirty.
            let webhooks = WebhookService(storage: api.store, seal: testWebhookSeal)
            let otherHook = try await webhooks.create(appId: other.id, url: quickURL, description: "", events: ["version.published"], createdBy: "test")
            _ = try await webhooks.ping(appId: other.id, id: otherHook.webhook.id)

            let deliverer = WebhookDeliverer(store: api.store, logger: testLogger, allowPrivate: true, seal: testWebhookSeal, interval: .milliseconds(200))
            let polling = Task { await deliverer.poll(clients) }
            let deadline = ContinuousClock.now + .seconds(3)
            while quick.calls.withLockedValue({ $0.isEmpty }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            // A few more polls while the slow calls are in flight: none takes more of that app.
            while slow.calls.withLockedValue({ $0.isEmpty }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            try await Task.sleep(for: .milliseconds(800))
            let slowCalls = slow.calls.withLockedValue { $0.count }
            polling.cancel()
            await polling.value
            #expect(quick.calls.withLockedValue { $0.count } == 1, "the other app's delivery waited behind the first app's")
            #expect(slowCalls >= 1 && slowCalls <= WebhookDeliverer.maxInFlightPerApp, "\(slowCalls) of one app's deliveries in flight at once")

            // The claim itself: at most four of one app (less what the caller has in flight), the
            // others' too.
            _ = try await webhooks.ping(appId: other.id, id: otherHook.webhook.id)
            let claimed = try await api.store.claimDueDeliveries(limit: 16, perApp: 4, inFlight: [:], lease: 60)
            #expect(claimed.filter { $0.appId == api.app.id }.count == 4 && claimed.filter { $0.appId == other.id }.count == 1, "\(claimed.map(\.appId))")
            #expect(try await api.store.claimDueDeliveries(limit: 16, perApp: 4, inFlight: [api.app.id: 4], lease: 60).isEmpty)
            #expect(try await api.store.claimDueDeliveries(limit: 16, perApp: 4, inFlight: [api.app.id: 3, other.id: 1], lease: 60).map(\.appId) == [api.app.id])
            #expect(try await api.store.claimDueDeliveries(limit: 2, perApp: 4, inFlight: [:], lease: 60).map(\.appId) == [api.app.id, api.app.id])
        }
        await clients.shutdown()
    }

    /// The claim runs ten times a second per process while anything is in flight: finding which
    /// apps to serve must read neither every due delivery (one app's backlog) nor every app with
    /// a delivery waiting for its retry (many apps whose receivers are down). PostgreSQL's
    /// statistics count the table's rows read (flushed once the reading connection is idle); a
    /// database of its own, so that only these claims are counted.
    @Test("a claim reads neither every due delivery nor every app with one pending, and keeps the apps' order and shares")
    func claimingReadsABoundedPart() async throws {
        let (client, _) = try await TestDatabase.migratedDatabase(prefix: "rivers_claim")
        let store = Store(client: client, logger: testLogger)
        let webhooks = WebhookService(storage: store, seal: testWebhookSeal)
        var apps: [String] = []
        var hooks: [String] = []
        for name in ["busy", "late", "future"] {
            let app = try await AppService(storage: store).create(slug: "claim-\(name)", name: name)
            apps.append(app.id)
            hooks.append(try await webhooks.create(appId: app.id, url: "https://example.com/hook", description: "", events: ["version.published"], createdBy: "test").webhook.id)
        }
        func add(_ prefix: String, app: String, hook: String, count: Int, firstInSeconds: Int) async throws {
            try await client.query(
                """
                INSERT INTO webhook_deliveries (id, app_id, webhook_id, event, payload, next_attempt_at)
                SELECT \(prefix) || '-' || n, \(app)::uuid, \(hook)::uuid, 'version.published', '{}',
                       now() + make_interval(secs => \(firstInSeconds)::int + n * 0.001)
                FROM generate_series(1, \(count)::int) AS n
                """, logger: testLogger)
        }
        func rowsRead() async throws -> Int {
            var n = 0
            for try await read in try await client.query(
                """
                SELECT (coalesce(t.seq_tup_read, 0) + coalesce((SELECT sum(i.idx_tup_read) FROM pg_stat_user_indexes i WHERE i.relid = t.relid), 0))::int
                FROM pg_stat_user_tables t WHERE t.relname = 'webhook_deliveries'
                """, logger: testLogger
            ).decode(Int.self) { n = read }
            return n
        }
        func claimReading(limit: Int, inFlight: [String: Int] = [:]) async throws -> (claimed: [String], rows: Int) {
            try await client.query("ANALYZE webhook_deliveries", logger: testLogger)
            try await Task.sleep(for: .seconds(1))
            let before = try await rowsRead()
            let claimed = try await store.claimDueDeliveries(limit: limit, perApp: 4, inFlight: inFlight, lease: 60)
            let after = try await statisticsAfter(before) { try await rowsRead() }
            #expect(after > before, "the statistics counted the claim")
            // (The order of the answer is not the claim's: compared as sorted lists.)
            return (claimed.map(\.appId).sorted(), after - before)
        }

        // 2,000 apps whose receivers are down, each with a delivery waiting an hour for its retry,
        // and 10 due of the late app: the claim reads about the 10, not the 2,000 apps.
        try await client.query(
            "INSERT INTO apps (id, slug, name) SELECT gen_random_uuid(), 'down-' || n, 'down' FROM generate_series(1, 2000) AS n", logger: testLogger)
        try await client.query(
            """
            INSERT INTO webhook_deliveries (id, app_id, webhook_id, event, payload, next_attempt_at)
            SELECT 'down-' || a.slug, a.id, \(hooks[2])::uuid, 'version.published', '{}', now() + interval '1 hour'
            FROM apps a WHERE a.slug LIKE 'down-%'
            """, logger: testLogger)
        try await add("late", app: apps[1], hook: hooks[1], count: 10, firstInSeconds: -60)
        let few = try await claimReading(limit: 16)
        #expect(few.claimed == Array(repeating: apps[1], count: 4), "\(few.claimed)")
        #expect(few.rows < 100, "\(few.rows) rows read to claim 4 of 10 due deliveries among 2,010 pending")

        // One app's backlog of 20,000 due an hour ago fills the window: the apps come from
        // skipping along the index, still in order (the busy app's oldest first), each its share.
        try await add("busy", app: apps[0], hook: hooks[0], count: 20_000, firstInSeconds: -3600)
        let many = try await claimReading(limit: 16)
        #expect(many.claimed == (Array(repeating: apps[0], count: 4) + Array(repeating: apps[1], count: 4)).sorted(), "\(many.claimed)")
        #expect(many.rows < Store.claimWindow + 2 * 2_010 + 100, "\(many.rows) rows read to claim 8 of 20,010 due deliveries")
        #expect(try await claimReading(limit: 1).claimed == [apps[0]], "the busy app's delivery has waited longest")
        #expect(try await claimReading(limit: 1, inFlight: [apps[0]: 4]).claimed == [apps[1]], "a busy app with no room is passed over")
    }

    @Test("at most 1,000 deliveries wait for one webhook: an event past that is logged as not sent, and a redelivery that would add one is refused")
    func eventDeliveriesAreCappedPerWebhook() async throws {
        try await withAPI { api in
            let hook = try await api.request(.post, "webhooks", json: ["url": "https://hooks.example.com/x", "events": ["version.published"]])
            let hookId = try #require(hook["id"]?.stringValue, "\(hook.text)")
            #expect(try await api.request(.post, "webhooks/\(hookId)/ping").status == .accepted)
            let firstId = try #require(try await api.request(.get, "webhooks/\(hookId)/deliveries").json.at("items", 0, "id")?.stringValue)
            try await TestDatabase.client().query(
                """
                INSERT INTO webhook_deliveries (id, app_id, webhook_id, event, payload, next_attempt_at)
                SELECT 'msg_test_' || n, \(api.app.id)::uuid, \(hookId)::uuid, 'ping', '{}', now() + interval '1 hour'
                FROM generate_series(1, \(Limits.maxPendingDeliveriesPerWebhook - 1)) AS n
                """, logger: testLogger)
            try await api.create("families", phoneFamily)
            _ = try await api.create("screens", screenBody("Home", components: [component("list", source: "feed-1")], extra: ["home": true]))
            #expect(try await api.request(.post, "publish").status == .created)
            let newest = try await api.request(.get, "webhooks/\(hookId)/deliveries?limit=1")
            #expect(newest.json.at("items", 0, "event") == "version.published" && newest.json.at("items", 0, "state") == "failed", "\(newest.text)")
            #expect(newest.json.at("items", 0, "last_error")?.stringValue?.hasPrefix("not sent: 1000 deliveries") == true, "\(newest.text)")
            // The event not sent would be one more: refused. The ping waits already: sent again, it adds none.
            let notSentId = try #require(newest.json.at("items", 0, "id")?.stringValue)
            let refused = try await api.request(.post, "webhooks/\(hookId)/deliveries/\(notSentId)/redeliver")
            #expect(refused.status == .conflict, "\(refused.text)")
            let again = try await api.request(.post, "webhooks/\(hookId)/deliveries/\(firstId)/redeliver")
            #expect(again.status == .accepted, "\(again.text)")

            // A delivery's attempts grow with every redelivery: its detail lists the latest 100.
            try await TestDatabase.client().query(
                "INSERT INTO webhook_attempts (delivery_id, number, status) SELECT \(firstId), n, 500 FROM generate_series(1, 150) AS n",
                logger: testLogger)
            let detail = try await api.request(.get, "webhooks/\(hookId)/deliveries/\(firstId)")
            let numbers = detail["attempt_log"]?.arrayValue?.compactMap { $0["number"]?.numberValue } ?? []
            #expect(numbers == (51...150).map(Double.init), "\(numbers.prefix(3))…")
        }
    }

    @Test("the delivery log keeps 30 days: older finished deliveries go with their attempts, waiting ones stay")
    func theDeliveryLogIsSwept() async throws {
        try await withAPI { api in
            let hook = try await api.request(.post, "webhooks", json: ["url": "https://hooks.example.com/x"])
            let hookId = try #require(hook["id"]?.stringValue, "\(hook.text)")
            let client = try await TestDatabase.client()
            try await client.query(
                """
                INSERT INTO webhook_deliveries (id, app_id, webhook_id, event, payload, state, created_at, next_attempt_at)
                SELECT 'msg_sweep_' || n || \(hookId), \(api.app.id)::uuid, \(hookId)::uuid, 'ping', '{}',
                       CASE WHEN n = 3 THEN 'pending' WHEN n = 2 THEN 'failed' ELSE 'delivered' END,
                       now() - make_interval(days => CASE WHEN n = 4 THEN 29 ELSE 31 END), now() + interval '1 hour'
                FROM generate_series(1, 4) AS n
                """, logger: testLogger)
            try await client.query(
                "INSERT INTO webhook_attempts (delivery_id, number, status) VALUES (\("msg_sweep_1" + hookId), 1, 200)", logger: testLogger)
            try await api.store.sweepDeliveries()
            let left = try await client.query(
                "SELECT id FROM webhook_deliveries WHERE webhook_id = \(hookId)::uuid AND id LIKE 'msg_sweep_%' ORDER BY id", logger: testLogger)
            var ids: [String] = []
            for try await id in left.decode(String.self) { ids.append(String(id.prefix(11))) }
            #expect(ids == ["msg_sweep_3", "msg_sweep_4"], "the waiting one and the one within 30 days")
            let attempts = try await client.query(
                "SELECT count(*)::int FROM webhook_attempts WHERE delivery_id = \("msg_sweep_1" + hookId)", logger: testLogger)
            for try await n in attempts.decode(Int.self) { #expect(n == 0) }
        }
    }

    @Test("a publish reaches a receiver that fails twice on the third try, signed per Standard Webhooks; nothing is sent for a change that rolled back")
    func delivery() async throws {
        let receiver = WebhookReceiver(failures: 2)
        let url = try await receiver.start()
        defer { receiver.stop() }
        let clients = WebhookDeliverer.Clients()
        try await withAPI { api in
            let deliverer = WebhookDeliverer(store: api.store, logger: testLogger, retry: WebhookRetry(base: 0.2), allowPrivate: true, seal: testWebhookSeal)
            let made = try await api.request(.post, "webhooks", json: ["url": .string(url), "events": ["version.published", "channel.promoted"]])
            #expect(made.status == .created, "\(made.text)")
            let id = try #require(made["id"]?.stringValue)
            let secret = try #require(made["secret"]?.stringValue)
            // Sealed at rest (the tests' server has a WEBHOOK_SECRET_KEY): the row does not hold the secret.
            let stored = try await api.store.client.query("SELECT secret FROM webhooks WHERE id = \(id)::uuid", logger: testLogger)
                .collect().first?.decode(String.self)
            #expect(stored.map(WebhookSecretSeal.isSealed) == true && stored?.contains(String(secret.dropFirst(6))) == false)
            #expect(try stored.map { try testWebhookSeal.open($0, appId: api.app.id) } == secret)

            // A publish that is refused writes nothing, so nothing is sent.
            try await api.create("families", phoneFamily)
            _ = try await api.create("screens", screenBody("Home", components: [component("list", source: "feed-1")], extra: ["home": true]))
            let orphan = try await api.create("screens", screenBody("Orphan", extra: ["connected": true]))
            #expect(try await api.request(.post, "publish").status == .unprocessableContent)
            #expect(try await api.request(.get, "webhooks/\(id)/deliveries")["total"] == 0)
            #expect(try await api.request(.delete, "screens/\(orphan["id"]?.stringValue ?? "")").status == .noContent)
            #expect(try await api.request(.post, "publish", json: ["note": "hello"]).status == .created)
            let deliveries = try await api.request(.get, "webhooks/\(id)/deliveries")
            #expect(deliveries["total"] == 1 && deliveries.json.at("items", 0)?["state"] == "pending", "\(deliveries.text)")
            let deliveryId = try #require(deliveries.json.at("items", 0)?["id"]?.stringValue)

            // Three tries, the retries 0.2 and 0.4 s apart.
            let deadline = ContinuousClock.now + .seconds(15)
            while receiver.calls.withLockedValue({ $0.count }) < 3, ContinuousClock.now < deadline {
                _ = try await deliverer.deliverDue(clients)
                try await Task.sleep(for: .milliseconds(50))
            }
            let detail = try await api.request(.get, "webhooks/\(id)/deliveries/\(deliveryId)")
            #expect(detail["state"] == "delivered" && detail["attempts"] == 3, "\(detail.text)")
            #expect(detail["attempt_log"]?.arrayValue?.map { $0["status"] } == [500, 500, 204])
            #expect(detail["payload"]?["type"] == "version.published" && detail["payload"]?["data"]?["version"] == 1)
            #expect(detail["payload"]?["data"]?["note"] == "hello" && detail["payload"]?["data"]?["channel"] == "production")

            // Each call signed: v1,base64(HMAC-SHA256(key, id.timestamp.body)).
            let calls = receiver.calls.withLockedValue { $0 }
            #expect(calls.count == 3)
            let key = try #require(Data(base64Encoded: String(secret.dropFirst("whsec_".count))))
            for call in calls {
                let msgId = try #require(call.headers[HTTPField.Name("webhook-id")!])
                let timestamp = try #require(call.headers[HTTPField.Name("webhook-timestamp")!])
                let signature = try #require(call.headers[HTTPField.Name("webhook-signature")!])
                #expect(msgId == deliveryId)
                #expect(abs((Int(timestamp) ?? 0) - Int(Date().timeIntervalSince1970)) < 60)
                let expected = HMAC<SHA256>.authenticationCode(for: Array("\(msgId).\(timestamp).\(call.body)".utf8), using: SymmetricKey(data: key))
                #expect(signature == "v1," + Data(expected).base64EncodedString())
            }

            // Redelivered on request; a ping; a rotated secret signs beside the old one.
            #expect(try await api.request(.post, "webhooks/\(id)/deliveries/\(deliveryId)/redeliver").status == .accepted)
            #expect(try await api.request(.post, "webhooks/\(id)/rotate-secret").status == .ok)
            #expect(try await api.request(.post, "webhooks/\(id)/ping").status == .accepted)
            while receiver.calls.withLockedValue({ $0.count }) < 5, ContinuousClock.now < deadline + .seconds(10) {
                _ = try await deliverer.deliverDue(clients)
                try await Task.sleep(for: .milliseconds(50))
            }
            let later = receiver.calls.withLockedValue { $0 }
            #expect(later.count == 5)
            #expect(later.last?.headers[HTTPField.Name("webhook-signature")!]?.split(separator: " ").count == 2, "both secrets sign during the overlap")
            #expect(later.contains { $0.body.contains("\"ping\"") })

            // A disabled webhook is told nothing.
            #expect(try await api.request(.patch, "webhooks/\(id)", json: ["enabled": false]).status == .ok)
            #expect(try await api.request(.put, "channels/production", json: ["version": 1]).status == .ok)
            #expect(try await api.request(.get, "webhooks/\(id)/deliveries")["total"] == 2)
        }
        await clients.shutdown()
    }
}
