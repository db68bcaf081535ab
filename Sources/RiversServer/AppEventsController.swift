import Foundation
import HTTPTypes
import Hummingbird
import RiversCore
import RiversStore

/// Together (issue 28): an app's live stream of changes and presence, and presence itself.
struct AppEventsController {
    let store: any AppEventRepository
    let hub: AppEventHub
    let helpers: APIHelpers
    /// Asked at every heartbeat whether a person's session is still alive.
    let callers: any CallerRepository

    /// Events a reconnecting stream may catch up on; past that it is told to reload.
    static let maxReplay = 500

    static let accelBuffering = HTTPField.Name("X-Accel-Buffering")!
    static let lastEventID = HTTPField.Name("Last-Event-ID")!

    func register(on routes: RouteRegistrar<RiversContext>) {
        let appRoutes = routes.appScoped()
        appRoutes.on(.get, "events", need: .role(.viewer)) { request, context in
            try await stream(request, context)
        }
        appRoutes.on(.put, "presence", need: .role(.viewer)) { request, context in
            let problems = Problems()
            guard let r = ObjectReader(try await helpers.body(request), at: "", problems: problems) else { throw Problem.invalid(problems.errors) }
            r.rejectUnknownKeys(["where", "field"])
            let place = r.string("where", required: true, nonEmpty: true, maxLength: 200)
            let field = r.string("field", maxLength: 500) ?? ""
            if let place, place.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                problems.add("/where", "must be a place in the editor like screens/{id}, without control characters")
            }
            if field.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                problems.add("/field", "must be a JSON pointer like /ui_components/2, without control characters")
            }
            guard problems.isEmpty, let place else { throw Problem.invalid(problems.errors, count: problems.count) }
            let (who, name) = Self.identity(context)
            guard hub.admitPresence(appId: context.app.id, who: who) else {
                throw Problem(.tooManyRequests, type: "too-many-requests", title: "Too many requests",
                              detail: "presence is updated at most every 100 ms per person", headers: [.retryAfter: "1"])
            }
            hub.setPresence(appId: context.app.id, entry: PresenceEntry(who: who, name: name, place: place, field: field, seen: .now), who: who)
            let payload: JSONValue = ["app": .string(context.app.id), "who": .string(who), "name": .string(name), "where": .string(place), "field": .string(field)]
            try await store.announcePresence(String(decoding: payload.serialized(), as: UTF8.self))
            return NoContent()
        }
        appRoutes.on(.delete, "presence", need: .role(.viewer)) { _, context in
            let (who, _) = Self.identity(context)
            hub.setPresence(appId: context.app.id, entry: nil, who: who)
            let payload: JSONValue = ["app": .string(context.app.id), "who": .string(who)]
            try await store.announcePresence(String(decoding: payload.serialized(), as: UTF8.self))
            return NoContent()
        }
    }

    /// Who a caller is in presence and whose streams are theirs: a person by account (their name,
    /// never their email), a token by id.
    static func identity(_ context: AppContext) -> (who: String, name: String) {
        switch context.principal {
        case .person(let session):
            let user = session.user
            return ("user:\(user.id)", user.name.isEmpty ? String(user.email.prefix { $0 != "@" }) : user.name)
        case .token(_, let token):
            return ("token:\(token.id)", "token \(token.name)")
        case nil:
            return ("anonymous", "someone")
        }
    }

    func stream(_ request: Request, _ context: AppContext) async throws -> Response {
        let app = context.app
        let isAdmin = context.people == .withEmails
        // A reconnect names the last event it had: digits only, else the stream starts from now.
        var after: Int?
        if let text = request.headers[Self.lastEventID] {
            guard text.utf8.count <= 18, !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }), let n = Int(text) else {
                throw Problem.badParameter("Last-Event-ID", "Last-Event-ID must be the id of an event this stream sent (digits)")
            }
            after = n
        }
        let (subscriber, items): (EventSubscriber, AsyncStream<StreamItem>)
        do {
            (subscriber, items) = try hub.subscribe(appId: app.id, principalKey: Self.identity(context).who, isAdmin: isAdmin)
        } catch let refusal as AppEventHub.Refusal {
            let detail: String
            switch refusal {
            case .tooManyForCaller: detail = "you have \(hub.bounds.perPrincipal) streams of this app open already (close a tab)"
            case .tooManyForApp: detail = "this app has \(hub.bounds.perApp) streams open on this server already"
            case .closing: detail = "the server is stopping: reconnect"
            }
            throw Problem(.tooManyRequests, type: "too-many-requests", title: "Too many streams", detail: detail, headers: [.retryAfter: "5"])
        }
        // Subscribed first, then the missed events read: nothing falls between the two (an event
        // in both is sent once, by id).
        var replay: [AppEvent] = []
        var tooMany = false
        if let after {
            do {
                let entries = try await store.appEvents(appId: app.id, after: after, limit: Self.maxReplay + 1)
                tooMany = entries.count > Self.maxReplay
                replay = entries.prefix(Self.maxReplay).compactMap { AppEvent.from(entry: $0.entry.eventJSON(actorName: $0.actorName), forAdmin: isAdmin) }
            } catch {
                hub.unsubscribe(subscriber)
                throw error
            }
        }
        let hub = self.hub, missed = replay, tooManyMissed = tooMany
        let heartbeat = hub.bounds.heartbeat
        let access = StreamAccess(principal: context.principal, callers: callers)
        let presence = hub.presenceEvent(appId: app.id)
        // Live events the replay sent already are skipped: those up to its last. Nothing replayed,
        // nothing is skipped (a Last-Event-ID beyond every event, from another database or a
        // client's bug, would otherwise silence the stream).
        let lastReplayed = replay.last?.id ?? 0
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store",
                // nginx (deploy/) passes each event on at once rather than buffering the stream.
                Self.accelBuffering: "no",
            ],
            body: ResponseBody { writer in
                let beat = Task {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: access.wait(upTo: heartbeat))
                        if Task.isCancelled { return }
                        if let reason = await access.ended() {
                            subscriber.end(reason, code: "access")
                            return
                        }
                        subscriber.send(.heartbeat)
                    }
                }
                defer {
                    beat.cancel()
                    hub.unsubscribe(subscriber)
                    subscriber.continuation.finish()
                }
                var opening = "retry: 2000\n: connected\n\n"
                if tooManyMissed {
                    opening += AppEvent.reload("too many events were missed: reload", code: "missed").wire
                } else {
                    for event in missed { opening += event.wire }
                }
                opening += presence.wire
                try await writer.write(ByteBuffer(string: opening))
                var ended = false
                for await item in items {
                    switch item {
                    case .event(let event):
                        if event.id > 0, event.id <= lastReplayed { continue }
                        try await writer.write(ByteBuffer(string: event.wire))
                    case .heartbeat:
                        try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                    case .end(let event):
                        ended = true
                        try await writer.write(ByteBuffer(string: event.wire))
                    }
                    if ended { break }
                }
                if !ended {
                    // The queue overflowed: the client was not reading. It is told, if it reads now.
                    try? await writer.write(ByteBuffer(string: AppEvent.reload("this stream fell behind: reload", code: "behind").wire))
                }
                try await writer.finish(nil)
            })
    }
}

/// Whether a stream's caller may still read it. A removed member, a changed role, a revoked token
/// and an archived app end streams at once, by their audit events (`AppEventHub.deliver`); what
/// makes no event is checked here, at every heartbeat: a token's expiry (the stream ends at the
/// moment itself) and a person's session ended by signing out (here or everywhere), by a new
/// password, or by idleness. A check that fails (the database away) leaves the stream open.
struct StreamAccess: Sendable {
    let principal: Principal?
    let callers: any CallerRepository

    /// How long to wait for the next check: a heartbeat, or less when a token expires sooner.
    func wait(upTo heartbeat: Duration, now: Date = Date()) -> Duration {
        guard case .token(_, let token) = principal, let expiresAt = token.expiresAt else { return heartbeat }
        let left = expiresAt.timeIntervalSince(now)
        guard left > 0 else { return .zero }
        let beat = Double(heartbeat.components.seconds) + Double(heartbeat.components.attoseconds) / 1e18
        // (Converted only when below a heartbeat: a far expiry never becomes an Int.)
        return left < beat ? .milliseconds(Int(left * 1000) + 1) : heartbeat
    }

    /// Why the stream ends now; nil while its caller may read it.
    func ended(now: Date = Date()) async -> String? {
        switch principal {
        case .token(_, let token):
            if let expiresAt = token.expiresAt, expiresAt <= now { return "this token expired" }
            return nil
        case .person(let session):
            guard let alive = try? await callers.sessionIsAlive(id: session.id) else { return nil }
            return alive ? nil : "you were signed out"
        case nil:
            return nil
        }
    }
}

extension AuditEntry {
    /// The entry as the notification's JSON carries it (migration 12).
    func eventJSON(actorName: String) -> JSONValue {
        [
            "actor_name": actorName.isEmpty ? .null : .string(actorName),
            "id": .number(Double(id)), "at": .string(Timestamp.format(at)), "actor": .string(actor), "actor_kind": .string(actorKind),
            "kind": .string(kind), "resource_id": .string(resourceId), "action": .string(action), "summary": .string(summary),
            "revision_before": revisionBefore.map { .number(Double($0)) } ?? .null,
            "revision_after": revisionAfter.map { .number(Double($0)) } ?? .null,
        ]
    }
}
