import AsyncHTTPClient
import Crypto
import Foundation
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import RiversCore
import RiversServices
import RiversStore
import ServiceLifecycle

/// Webhooks (issue 27): endpoints an app's admins register to hear of publishes, promotions,
/// rollbacks, schedules fired and the app archived. Every member sees them and their deliveries;
/// admins change them.
struct WebhookController {
    let store: any WebhookRepository
    /// Their changes.
    let webhooks: WebhookService
    let helpers: APIHelpers
    /// Whether endpoints may be in private networks (`WEBHOOK_PRIVATE_NETWORKS=allow`).
    let allowPrivate: Bool

    func register(on routes: RouteRegistrar<RiversContext>) {
        let appRoutes = routes.appScoped()
        appRoutes.on(.get, "webhooks", need: .role(.viewer)) { _, context in
            let hooks = try await store.webhooks(appId: context.app.id)
            return JSONResponse(pageJSON(hooks.map { Self.json($0, people: context.people) }, total: hooks.count, limit: Limits.maxWebhooksPerApp, offset: 0))
        }
        // The secret is in this answer only.
        appRoutes.on(.post, "webhooks", need: .role(.admin)) { request, context in
            let problems = Problems()
            guard let r = ObjectReader(try await helpers.body(request), at: "", problems: problems) else { throw Problem.invalid(problems.errors) }
            r.rejectUnknownKeys(["url", "events", "description"])
            let url = readURL(r, required: true)
            let events = Self.readEvents(r) ?? WebhookEvent.all
            let description = r.string("description", maxLength: 500) ?? ""
            if !problems.isEmpty { throw Problem.invalid(problems.errors, count: problems.count) }
            let (hook, secret) = try await webhooks.create(
                appId: context.app.id, url: url!, description: description, events: events, createdBy: context.publisher)
            var o = Self.json(hook, people: context.people).objectValue ?? [:]
            o["secret"] = .string(secret)
            return JSONResponse(.object(o), status: .created, headers: [.cacheControl: "no-store", .eTag: ETag.make(hook.revision)])
        }
        appRoutes.on(.get, "webhooks/{id}", need: .role(.viewer)) { _, context in
            let hook = try await store.webhook(appId: context.app.id, id: try context.pathParameter("id"))
            return JSONResponse(Self.json(hook, people: context.people), headers: [.eTag: ETag.make(hook.revision)])
        }
        appRoutes.on(.patch, "webhooks/{id}", need: .role(.admin)) { request, context in
            let problems = Problems()
            guard let r = ObjectReader(try await helpers.body(request), at: "", problems: problems) else { throw Problem.invalid(problems.errors) }
            r.rejectUnknownKeys(["url", "events", "description", "enabled"])
            let change = WebhookChange(
                url: readURL(r, required: false), description: r.string("description", maxLength: 500), events: Self.readEvents(r),
                enabled: r.bool("enabled"))
            if !problems.isEmpty { throw Problem.invalid(problems.errors, count: problems.count) }
            let hook = try await webhooks.update(
                appId: context.app.id, id: try context.pathParameter("id"), change: change, precondition: try helpers.precondition(request))
            return JSONResponse(Self.json(hook, people: context.people), headers: [.eTag: ETag.make(hook.revision)])
        }
        appRoutes.on(.delete, "webhooks/{id}", need: .role(.admin)) { _, context in
            try await webhooks.delete(appId: context.app.id, id: try context.pathParameter("id"))
            return NoContent()
        }
        appRoutes.on(.post, "webhooks/{id}/rotate-secret", need: .role(.admin)) { _, context in
            let (hook, secret) = try await webhooks.rotateSecret(appId: context.app.id, id: try context.pathParameter("id"))
            var o = Self.json(hook, people: context.people).objectValue ?? [:]
            o["secret"] = .string(secret)
            return JSONResponse(.object(o), headers: [.cacheControl: "no-store", .eTag: ETag.make(hook.revision)])
        }
        appRoutes.on(.post, "webhooks/{id}/ping", need: .role(.admin)) { _, context in
            let delivery = try await webhooks.ping(appId: context.app.id, id: try context.pathParameter("id"))
            return JSONResponse(Self.json(delivery), status: .accepted)
        }
        appRoutes.on(.get, "webhooks/{id}/deliveries", need: .role(.viewer)) { request, context in
            let (limit, offset) = try helpers.paging(request)
            let (list, total) = try await store.webhookDeliveries(
                appId: context.app.id, webhookId: try context.pathParameter("id"), limit: limit, offset: offset)
            return JSONResponse(pageJSON(list.map(Self.json), total: total, limit: limit, offset: offset))
        }
        appRoutes.on(.get, "webhooks/{id}/deliveries/{delivery}", need: .role(.viewer)) { _, context in
            let (delivery, attempts) = try await store.webhookDelivery(
                appId: context.app.id, webhookId: try context.pathParameter("id"), id: try context.pathParameter("delivery"))
            var o = Self.json(delivery).objectValue ?? [:]
            o["payload"] = (try? JSONValue.parse(Array(delivery.payload.utf8))) ?? .string(delivery.payload)
            o["attempt_log"] = .array(attempts.map { a in
                [
                    "number": .number(Double(a.number)), "at": .string(Timestamp.format(a.at)),
                    "status": a.status.map { .number(Double($0)) } ?? .null, "error": .string(a.error),
                    "duration_ms": .number(Double(a.durationMs)),
                ]
            })
            return JSONResponse(.object(o))
        }
        appRoutes.on(.post, "webhooks/{id}/deliveries/{delivery}/redeliver", need: .role(.admin)) { _, context in
            let delivery = try await webhooks.redeliver(
                appId: context.app.id, webhookId: try context.pathParameter("id"), id: try context.pathParameter("delivery"))
            return JSONResponse(Self.json(delivery), status: .accepted)
        }
    }

    func readURL(_ r: ObjectReader, required: Bool) -> String? {
        guard let url = r.string("url", required: required, nonEmpty: true, maxLength: 2000) else { return nil }
        if let problem = WebhookTarget.problem(url, allowPrivate: allowPrivate) {
            r.problems.add(r.at("url"), problem)
            return nil
        }
        return url
    }

    static func readEvents(_ r: ObjectReader) -> [String]? {
        guard let list = r.array("events") else { return nil }
        var events: [String] = []
        for (i, value) in list.prefix(20).enumerated() {
            guard let name = value.stringValue, WebhookEvent.all.contains(name) else {
                r.problems.add("\(r.at("events"))/\(i)", "must be one of \(WebhookEvent.all.joined(separator: ", "))")
                continue
            }
            if !events.contains(name) { events.append(name) }
        }
        if list.count > 20 { r.problems.add(r.at("events"), "holds at most 20 names") }
        if list.isEmpty { r.problems.add(r.at("events"), "needs at least one event (or leave it out for all of them)") }
        return events
    }

    static func json(_ hook: Webhook, people: PeopleShown) -> JSONValue {
        [
            "id": .string(hook.id), "url": .string(hook.url), "description": .string(hook.description),
            "events": .array(hook.events.map(JSONValue.string)), "enabled": .bool(hook.enabled), "revision": .number(Double(hook.revision)),
            "created_by": .string(people.name(hook.createdBy)), "created_at": .string(Timestamp.format(hook.createdAt)),
            "updated_at": .string(Timestamp.format(hook.updatedAt)),
            "previous_secret_until": hook.previousSecretUntil.map { .string(Timestamp.format($0)) } ?? .null,
        ]
    }

    static func json(_ d: WebhookDelivery) -> JSONValue {
        [
            "id": .string(d.id), "webhook_id": .string(d.webhookId), "event": .string(d.event), "state": .string(d.state),
            "attempts": .number(Double(d.attempts)),
            "next_attempt_at": d.state == "pending" ? .string(Timestamp.format(d.nextAttemptAt)) : .null,
            "last_status": d.lastStatus.map { .number(Double($0)) } ?? .null, "last_error": .string(d.lastError),
            "created_at": .string(Timestamp.format(d.createdAt)), "delivered_at": d.deliveredAt.map { .string(Timestamp.format($0)) } ?? .null,
        ]
    }
}

/// Standard Webhooks signatures: `v1,` and the base64 HMAC-SHA256 of `{id}.{timestamp}.{body}`
/// under each secret's key (the base64 after `whsec_`), space-separated.
enum WebhookSignature {
    static func sign(id: String, timestamp: Int, body: [UInt8], secrets: [String]) -> String {
        secrets.compactMap { secret -> String? in
            guard secret.hasPrefix("whsec_"), let key = Data(base64Encoded: String(secret.dropFirst(6))) else { return nil }
            let mac = HMAC<SHA256>.authenticationCode(for: Array("\(id).\(timestamp).".utf8) + body, using: SymmetricKey(data: key))
            return "v1," + Data(mac).base64EncodedString()
        }.joined(separator: " ")
    }
}

/// Sends webhook deliveries: every process polls once a second for due ones, claims a few
/// (leased, `SKIP LOCKED`, so none is sent by two processes at once; shared between apps, at most
/// four of one app in flight in a process and sixteen in all), and sends each with its
/// signature; a failure is retried with exponential backoff for a day (`WebhookRetry`). Every
/// address a host resolves to is checked before the call and the call is pinned to one of them
/// (the client does not look the host up again: a second answer, DNS rebinding, cannot send it
/// to a private address), redirects are never followed, and a call takes at most 10 seconds.
public struct WebhookDeliverer: Service {
    let store: any WebhookOutbox
    let logger: Logger
    let retry: WebhookRetry
    let allowPrivate: Bool
    /// Opens the secrets sealed at rest (`WEBHOOK_SECRET_KEY`).
    let seal: WebhookSecretSeal
    var interval: Duration = .seconds(1)
    /// Warnings once per key every 10 minutes: secrets this process cannot open (per app and
    /// kind), and a poll that keeps failing.
    let warnings = WarningGate(interval: .seconds(600))

    /// How long a claimed delivery is held before another process may take it (a process died).
    static let leaseSeconds = 60
    static let timeout: TimeAmount = .seconds(10)

    /// `seal` has no default: a caller that forgot it could open no sealed secret.
    public init(
        store: any WebhookOutbox, logger: Logger, retry: WebhookRetry = WebhookRetry(), allowPrivate: Bool = false, seal: WebhookSecretSeal,
        interval: Duration = .seconds(1)
    ) {
        self.store = store
        self.logger = logger
        self.retry = retry
        self.allowPrivate = allowPrivate
        self.seal = seal
        self.interval = interval
    }

    public func run() async throws {
        let clients = Clients()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await poll(clients) }
            try? await gracefulShutdown()
            group.cancelAll()
        }
        await clients.shutdown()
    }

    /// Deliveries this process sends at once, in all and of one app.
    static let maxInFlight = 16
    static let maxInFlightPerApp = 4

    /// The apps with deliveries in flight here, and how many each.
    final class InFlight: Sendable {
        private let counts = NIOLockedValueBox<[String: Int]>([:])
        var now: (apps: [String: Int], total: Int) { counts.withLockedValue { ($0, $0.values.reduce(0, +)) } }
        func start(_ appId: String) { counts.withLockedValue { $0[appId, default: 0] += 1 } }
        func end(_ appId: String) {
            counts.withLockedValue { counts in
                counts[appId, default: 1] -= 1
                if counts[appId] == 0 { counts[appId] = nil }
            }
        }
    }

    /// Claims and sends without waiting for what is in flight: each delivery is a task of its
    /// own, and every poll claims as many as there is room for, at most `maxInFlightPerApp` of
    /// one app in flight. A receiver that takes its 10 seconds holds only its own app's
    /// deliveries (each poll had waited for the slowest of its batch, and a batch was the oldest
    /// due, so one app's backlog to a slow receiver held back every other app). While anything
    /// is in flight or was just claimed, polls come every 100 ms, so a slot is taken again soon
    /// after it is free.
    func poll(_ clients: Clients) async {
        let inFlight = InFlight()
        var sweptAt = ContinuousClock.now - .seconds(3600)
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled {
                var claimed = 0
                do {
                    let busy = inFlight.now
                    if busy.total < Self.maxInFlight {
                        let due = try await claim(limit: Self.maxInFlight - busy.total, inFlight: busy.apps)
                        claimed = due.count
                        for delivery in due {
                            inFlight.start(delivery.appId)
                            group.addTask {
                                await send(delivery, clients)
                                inFlight.end(delivery.appId)
                            }
                        }
                    }
                    await clients.closeIdle()
                    if ContinuousClock.now - sweptAt > .seconds(3600) {
                        sweptAt = ContinuousClock.now
                        // Hourly, so said where an operator sees it (a failing sweep went unseen at debug).
                        do { try await store.sweepDeliveries() } catch {
                            if Task.isCancelled || Task.isShuttingDownGracefully { return }
                            logger.warning("sweeping the webhook delivery log failed; trying again in an hour: \(String(reflecting: error))")
                        }
                    }
                } catch {
                    if Task.isCancelled || Task.isShuttingDownGracefully { return }
                    warnings.say("claim", "taking due webhook deliveries failed; trying again: \(String(reflecting: error))", to: logger)
                }
                try? await Task.sleep(for: claimed > 0 || inFlight.now.total > 0 ? min(interval, .milliseconds(100)) : interval)
            }
        }
    }

    func claim(limit: Int, inFlight: [String: Int]) async throws -> [DueDelivery] {
        try await store.claimDueDeliveries(limit: limit, perApp: Self.maxInFlightPerApp, inFlight: inFlight, lease: Self.leaseSeconds)
    }

    /// Sends what is due now (as one poll would claim it) and waits for it; how many it sent.
    func deliverDue(_ clients: Clients) async throws -> Int {
        let due = try await claim(limit: Self.maxInFlight, inFlight: [:])
        await withTaskGroup(of: Void.self) { group in
            for delivery in due { group.addTask { await send(delivery, clients) } }
        }
        return due.count
    }

    func send(_ delivery: DueDelivery, _ clients: Clients) async {
        let started = ContinuousClock.now
        var status: Int?
        var error = ""
        var final = false
        let problem = delivery.enabled ? WebhookTarget.problem(delivery.url, allowPrivate: allowPrivate) : nil
        if !delivery.enabled {
            (error, final) = ("the webhook is disabled", true)
        } else if let problem {
            (error, final) = ("the URL \(problem)", true)
        } else {
            // Signed before the host is looked up: a delivery that cannot be signed costs no DNS query.
            switch signedRequest(delivery) {
            case .failure(let why):
                error = why.description
                final = why.final
            case .success(let request):
                // Looked up once, here: what is checked is what is called.
                let connection = await Self.connection(for: delivery.url, allowPrivate: allowPrivate)
                if case .refused(let why) = connection {
                    error = why
                } else {
                    (status, error) = await Self.call(request, connection: connection, clients: clients)
                }
            }
        }
        let elapsed = ContinuousClock.now - started
        let ms = Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
        let delivered = error.isEmpty && status.map { (200...299).contains($0) } == true
        let next = delivered || final ? nil : retry.nextAttempt(afterAttempt: delivery.attempt, created: delivery.createdAt, now: Date())
        do {
            try await store.recordAttempt(delivery, status: status, error: error, durationMs: ms, delivered: delivered, nextAttemptAt: next)
        } catch {
            logger.warning("recording a webhook attempt failed (it will be tried again when its lease ends): \(String(reflecting: error))")
        }
    }

    /// Why a delivery cannot be sent as it stands; `final` when trying again cannot help.
    struct Unsendable: Error, CustomStringConvertible {
        var description: String
        var final = false
    }

    /// The delivery's request, signed. An unsendable one is tried again later unless the reason
    /// is final: a sealed secret this process cannot open may open once the key is set right
    /// (another process may have it).
    func signedRequest(_ delivery: DueDelivery) -> Result<HTTPClient.Request, Unsendable> {
        let secrets: [String]
        switch self.secrets(of: delivery) {
        case .failure(let sealed):
            if warnings.allows("current \(delivery.appId)") {
                logger.warning(
                    "a webhook delivery cannot be signed: \(sealed.description) (said once every 10 minutes for an app; each attempt records it)",
                    metadata: ["delivery": "\(delivery.id)", "app": "\(delivery.appId)"])
            }
            return .failure(Unsendable(description: sealed.description))
        case .success(let opened):
            secrets = opened
        }
        let timestamp = Int(Date().timeIntervalSince1970)
        let body = Array(delivery.payload.utf8)
        let signature = WebhookSignature.sign(id: delivery.id, timestamp: timestamp, body: body, secrets: secrets)
        // Never sent unsigned (no secret of the form `whsec_…`: a damaged row).
        guard !signature.isEmpty else { return .failure(Unsendable(description: "the webhook has no secret to sign with")) }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "User-Agent", value: "Rivers-Webhooks/1")
        headers.add(name: "webhook-id", value: delivery.id)
        headers.add(name: "webhook-timestamp", value: String(timestamp))
        headers.add(name: "webhook-signature", value: signature)
        guard let request = try? HTTPClient.Request(url: delivery.url, method: .POST, headers: headers, body: .byteBuffer(ByteBuffer(bytes: body))) else {
            return .failure(Unsendable(description: "the URL cannot be called", final: true))
        }
        return .success(request)
    }

    /// The secrets a delivery is signed with, opened (they may be sealed at rest). The first is
    /// the webhook's current secret and must open; a previous one (kept while a rotation
    /// overlaps) that no key here opens is left out, so the delivery is signed with the current
    /// secret alone rather than held back until the overlap ends.
    func secrets(of delivery: DueDelivery) -> Result<[String], WebhookSecretSeal.Failure> {
        var secrets: [String] = []
        for (index, stored) in delivery.secrets.enumerated() {
            do {
                secrets.append(try seal.open(stored, appId: delivery.appId))
            } catch where index > 0 {
                if warnings.allows("previous \(delivery.appId)") {
                    logger.warning(
                        "a webhook's previous secret cannot be opened; signing with its current one alone: \(error.description) (said once every 10 minutes for an app)",
                        metadata: ["delivery": "\(delivery.id)", "app": "\(delivery.appId)"])
                }
            } catch {
                return .failure(error)
            }
        }
        return .success(secrets)
    }

    /// Sends one attempt: its status (nil when no answer came) and what went wrong ("" for a 2xx).
    /// A host name is called at the addresses checked for it, each through a client told that
    /// address (TLS still checks the certificate against the name). The next address is
    /// tried only while the request has reached none: once a connection took its head, the
    /// receiver may act on it, and sending it elsewhere too would deliver it twice in one attempt.
    static func call(_ request: HTTPClient.Request, connection: Connection, clients: Clients) async -> (status: Int?, error: String) {
        guard case .pinned(let host, let addresses) = connection else {
            let outcome = await call(request, with: clients.shared)
            return (outcome.status, outcome.error)
        }
        var outcome: (status: Int?, error: String, headSent: Bool) = (nil, "\(host) has no address to call", false)
        for address in addresses {
            outcome = await clients.withPinned(host: host, address: address) { await call(request, with: $0) }
            if outcome.status != nil || outcome.headSent { break }
        }
        return (outcome.status, outcome.error)
    }

    /// The deliverer's HTTP clients: one for URLs called as they are, and one per host name and
    /// checked address it is pinned to, kept while in use and for a minute after, so that
    /// deliveries to one receiver go over its open connection (and TLS session) instead of
    /// opening one each (a pinned client is told one address for one name: another address
    /// checked later is another client). At most `maxPinned` are kept; past that a call gets a
    /// client of its own, shut down after it.
    final class Clients: Sendable {
        struct Key: Hashable {
            var host: String
            var address: String
        }

        private struct Kept {
            let client: HTTPClient
            var calls = 0
            var lastUsed: ContinuousClock.Instant
        }

        let shared: HTTPClient
        private let pinned = NIOLockedValueBox<[Key: Kept]>([:])
        let maxPinned: Int
        let idleLimit: Duration

        init(maxPinned: Int = 64, idleLimit: Duration = .seconds(60)) {
            shared = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: WebhookDeliverer.configuration())
            (self.maxPinned, self.idleLimit) = (maxPinned, idleLimit)
        }

        /// The pinned clients kept now (for tests).
        var pinnedCount: Int { pinned.withLockedValue { $0.count } }

        /// Runs `body` with the client pinned to `address` for `host`.
        func withPinned<Value: Sendable>(host: String, address: String, _ body: (HTTPClient) async -> Value) async -> Value {
            let key = Key(host: host, address: address)
            let kept = pinned.withLockedValue { pinned -> HTTPClient? in
                if pinned[key] == nil {
                    guard pinned.count < maxPinned else { return nil }
                    pinned[key] = Kept(client: Self.pinnedClient(key), lastUsed: .now)
                }
                pinned[key]!.calls += 1
                return pinned[key]!.client
            }
            guard let kept else {
                let own = Self.pinnedClient(key)
                let result = await body(own)
                try? await own.shutdown()
                return result
            }
            let result = await body(kept)
            pinned.withLockedValue { pinned in
                pinned[key]?.calls -= 1
                pinned[key]?.lastUsed = .now
            }
            return result
        }

        /// Shuts down the pinned clients no call has used for `idleLimit`.
        func closeIdle() async {
            let now = ContinuousClock.now
            let idle = pinned.withLockedValue { pinned -> [HTTPClient] in
                let keys = pinned.filter { $0.value.calls == 0 && now - $0.value.lastUsed >= idleLimit }.map(\.key)
                return keys.compactMap { pinned.removeValue(forKey: $0)?.client }
            }
            for client in idle { try? await client.shutdown() }
        }

        /// Shuts every client down (the deliverer stops; no call is under way).
        func shutdown() async {
            let all = pinned.withLockedValue { pinned -> [HTTPClient] in
                defer { pinned = [:] }
                return pinned.values.map(\.client)
            }
            for client in all { try? await client.shutdown() }
            try? await shared.shutdown()
        }

        private static func pinnedClient(_ key: Key) -> HTTPClient {
            HTTPClient(
                eventLoopGroup: HTTPClient.defaultEventLoopGroup,
                configuration: WebhookDeliverer.configuration(dnsOverride: [key.host: key.address], retryingConnections: false))
        }
    }

    /// One call through `client`: the status, what went wrong, and whether the request's head
    /// was written to a connection (the receiver may then have it, answer or not).
    static func call(_ request: HTTPClient.Request, with client: HTTPClient) async -> (status: Int?, error: String, headSent: Bool) {
        let answer = AttemptAnswer()
        var failure: (any Error)?
        do {
            try await client.execute(request: request, delegate: answer, deadline: .now() + Self.timeout).futureResult.get()
        } catch {
            failure = error
        }
        let (status, headSent) = answer.outcome
        guard let status else { return (nil, String(describing: failure ?? AttemptAnswer.NoAnswer()).prefix(300).description, headSent) }
        return (status, (200...299).contains(status) ? "" : "the receiver answered \(status)", true)
    }

    /// What a receiver answered, read through AsyncHTTPClient's delegate, which is told (on the
    /// request's event loop, before any failure of it) when the request's head has been written
    /// to a connection. The answer's body is not kept: up to 64 KiB of it is read, and a longer
    /// one is cut off there (its status stands).
    final class AttemptAnswer: HTTPClientResponseDelegate {
        typealias Response = Void
        struct NoAnswer: Error {}
        struct TooLong: Error {}
        private let state = NIOLockedValueBox<(status: Int?, headSent: Bool, read: Int)>((nil, false, 0))

        var outcome: (status: Int?, headSent: Bool) { state.withLockedValue { ($0.status, $0.headSent) } }

        func didSendRequestHead(task: HTTPClient.Task<Void>, _ head: HTTPRequestHead) {
            state.withLockedValue { $0.headSent = true }
        }

        func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
            state.withLockedValue { $0.status = Int(head.status.code) }
            return task.eventLoop.makeSucceededVoidFuture()
        }

        func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
            let read = state.withLockedValue { state -> Int in
                state.read += buffer.readableBytes
                return state.read
            }
            return read > 64 * 1024 ? task.eventLoop.makeFailedFuture(TooLong()) : task.eventLoop.makeSucceededVoidFuture()
        }

        func didFinishRequest(task: HTTPClient.Task<Void>) throws {}
    }

    /// The client's settings: no redirects, bounded waits; `dnsOverride` pins host names to
    /// addresses. A client that does not retry connections fails a request at the first refused
    /// or timed-out connection (one that does keeps trying until the request's deadline): a
    /// pinned client, whose caller tries the next address itself.
    static func configuration(dnsOverride: [String: String] = [:], retryingConnections: Bool = true) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: Self.timeout))
        configuration.dnsOverride = dnsOverride
        configuration.connectionPool.retryConnectionEstablishment = retryingConnections
        return configuration
    }

    /// Where a delivery connects.
    enum Connection: Equatable {
        /// To these addresses, checked, for this host name, one after the other (the first of
        /// each family the name resolved to, in the resolver's order): the client does not look
        /// the name up again.
        case pinned(host: String, addresses: [String])
        /// As the URL says: an address, checked; or any host, private networks being allowed.
        case direct
        /// Not at all, and why (the host resolves to an address in a private range, or not at all).
        case refused(String)
    }

    /// Where the URL's host may be called now, checked right before each call: every address it
    /// resolves to must be public (unless private networks are allowed), and the call goes to
    /// those addresses only.
    static func connection(for url: String, allowPrivate: Bool) async -> Connection {
        guard !allowPrivate else { return .direct }
        guard let name = hostAsCalled(url) else { return .refused("the URL has no host") }
        let addresses = await Task.detached { resolve(name) }.value
        if addresses.isEmpty { return .refused("\(name) does not resolve") }
        if let bad = addresses.first(where: { !$0.isPublic }) {
            return .refused("\(name) resolves to an address in a private or reserved range (\(bad.bytes.count == 4 ? bad.text : "IPv6"))")
        }
        guard IPAddress(name) == nil else { return .direct }
        var picked: [IPAddress] = []
        for address in addresses where !picked.contains(where: { $0.bytes.count == address.bytes.count }) { picked.append(address) }
        return .pinned(host: name, addresses: picked.map(\.text))
    }

    /// The host name as the HTTP client reads it from the URL (`URL.host`, IPv6 brackets
    /// trimmed: AsyncHTTPClient's `DeconstructedURL`), so that the name checked, the name pinned
    /// and the name the client would look up are one string (`URLComponents.host` gives an
    /// internationalized name back in Unicode where `URL.host` keeps its ASCII form).
    static func hostAsCalled(_ url: String) -> String? {
        guard let host = URL(string: url)?.host, !host.isEmpty else { return nil }
        return host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    static func resolve(_ host: String) -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var result: [IPAddress] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let n = node, result.count < 32 {
            if let address = n.pointee.ai_addr {
                if n.pointee.ai_family == AF_INET {
                    var a = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                    result.append(IPAddress(bytes: withUnsafeBytes(of: &a) { Array($0) }))
                } else if n.pointee.ai_family == AF_INET6 {
                    var a = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                    result.append(IPAddress(bytes: withUnsafeBytes(of: &a) { Array($0) }))
                }
            }
            node = n.pointee.ai_next
        }
        return result
    }
}
