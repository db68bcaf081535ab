import Foundation
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import RiversCore
import RiversStore
import ServiceLifecycle

/// One event of an app's live stream, as Server-Sent Events send it.
struct AppEvent: Sendable, Equatable {
    /// The audit entry's id (what `Last-Event-ID` names); 0 for presence and control events.
    var id: Int
    /// `change` (content: families, layouts, screens, plugins, versions, preview links, the app),
    /// `access` (members, tokens, invitations: admins only), `presence`, `reload`.
    var name: String
    /// One line of JSON.
    var data: String

    static func reload(_ reason: String, code: String) -> AppEvent {
        AppEvent(id: 0, name: "reload", data: String(decoding: JSONValue.object(["reason": .string(reason), "code": .string(code)]).serialized(), as: UTF8.self))
    }

    /// The bytes of the event on the stream.
    var wire: String {
        (id > 0 ? "id: \(id)\n" : "") + "event: \(name)\ndata: \(data)\n\n"
    }

    static let contentKinds: Set<String> = ["family", "layout", "screen", "plugin", "version", "preview_link", "app", "channel", "release_rules", "schedule"]

    /// An audit entry (from the notification's JSON or the log) as the event a caller may see:
    /// admins get who acted as the log names them; everyone else the name without the email.
    static func from(entry e: JSONValue, forAdmin: Bool) -> AppEvent? {
        guard let id = e["id"]?.numberValue.flatMap({ Int(exactly: $0) }), let kind = e["kind"]?.stringValue else { return nil }
        let content = contentKinds.contains(kind)
        if !content && !forAdmin { return nil }
        var o: [String: JSONValue] = [
            "kind": .string(kind), "resource_id": e["resource_id"] ?? "", "action": e["action"] ?? "",
            "summary": e["summary"] ?? "", "at": e["at"] ?? .null,
            "revision": e["revision_after"] ?? .null, "revision_before": e["revision_before"] ?? .null,
            "actor": .string(forAdmin ? (e["actor"]?.stringValue ?? "") : publicName(e["actor"]?.stringValue ?? "", name: e["actor_name"]?.stringValue)),
        ]
        if e["action"]?.stringValue == "update", content, let summary = e["summary"]?.stringValue, !summary.isEmpty, summary != "revision" {
            // Content updates list the fields they changed ("name, ui_components").
            o["fields"] = .array(summary.split(separator: ",").map { .string($0.trimmingCharacters(in: .whitespaces)) })
        }
        return AppEvent(id: id, name: content ? "change" : "access", data: String(decoding: JSONValue.object(o).serialized(), as: UTF8.self))
    }

    /// How members who are not admins see who acted: a person's name (the log keeps their
    /// email), else the email's local part; a token or the system as the log names them.
    static func publicName(_ actor: String, name: String? = nil) -> String {
        if let name, !name.isEmpty { return name }
        if let open = actor.lastIndex(of: "<"), actor.hasSuffix(">") {
            let name = actor[..<open].trimmingCharacters(in: .whitespaces)
            if !name.isEmpty { return name }
            return String(actor[actor.index(after: open)...].prefix { $0 != "@" })
        }
        if let at = actor.firstIndex(of: "@"), !actor.hasPrefix("token ") { return String(actor[..<at]) }
        return actor
    }
}

/// Someone in an app: where in the editor and which field (presence, never stored).
struct PresenceEntry: Sendable, Equatable {
    var who: String
    var name: String
    var place: String
    var field: String
    var seen: ContinuousClock.Instant

    var json: JSONValue { ["who": .string(who), "name": .string(name), "where": .string(place), "field": .string(field)] }
}

/// What a stream receives, in order.
enum StreamItem: Sendable {
    case event(AppEvent)
    case heartbeat
    /// The stream ends: the caller lost access, the server stops, or the client fell behind.
    case end(AppEvent)
}

/// One open stream.
final class EventSubscriber: Sendable {
    let id: Int
    let appId: String
    /// `user:<id>` or `token:<id>`: whose stream (and presence) it is.
    let principalKey: String
    let isAdmin: Bool
    let continuation: AsyncStream<StreamItem>.Continuation

    init(id: Int, appId: String, principalKey: String, isAdmin: Bool, continuation: AsyncStream<StreamItem>.Continuation) {
        self.id = id
        self.appId = appId
        self.principalKey = principalKey
        self.isAdmin = isAdmin
        self.continuation = continuation
    }

    /// Queues an item; a client that does not read is let go (its queue never grows past the
    /// hub's bound), told to reload when it comes back.
    func send(_ item: StreamItem) {
        if case .dropped = continuation.yield(item) {
            continuation.finish()
        }
    }

    /// Ends the stream with a `reload` event: `code` says why for programs (`access`, `stopping`,
    /// `missed`, `behind`), `reason` for people.
    func end(_ reason: String, code: String) {
        send(.end(AppEvent.reload(reason, code: code)))
        continuation.finish()
    }
}

/// The live streams this process holds and the presence it knows, per app. Events come from
/// every process through PostgreSQL (`AppEventListener`); each is passed to the streams of its
/// app whose caller may see it.
public final class AppEventHub: Sendable {
    public struct Bounds: Sendable {
        /// Streams one person or token may hold in one app, on one process.
        public var perPrincipal = 8
        /// Streams of one app on one process.
        public var perApp = 500
        /// Events queued for one stream before its client counts as gone.
        public var queue = 256
        public var heartbeat: Duration = .seconds(15)
        /// Presence is forgotten this long after its last heartbeat.
        public var presenceLifetime: Duration = .seconds(30)
        /// One presence update per person and app this often.
        public var presenceInterval: Duration = .milliseconds(100)
        public init() {}
    }

    let bounds: Bounds
    private struct State {
        var nextId = 0
        var streams: [String: [Int: EventSubscriber]] = [:]
        var presence: [String: [String: PresenceEntry]] = [:]
        var lastPresence: [String: ContinuousClock.Instant] = [:]
        var closed = false
    }
    private let state = NIOLockedValueBox(State())

    public init(bounds: Bounds = Bounds()) { self.bounds = bounds }

    enum Refusal: Error { case tooManyForCaller, tooManyForApp, closing }

    func subscribe(appId: String, principalKey: String, isAdmin: Bool) throws -> (EventSubscriber, AsyncStream<StreamItem>) {
        let (stream, continuation) = AsyncStream<StreamItem>.makeStream(bufferingPolicy: .bufferingOldest(bounds.queue))
        let subscriber = try state.withLockedValue { state -> EventSubscriber in
            if state.closed { throw Refusal.closing }
            let streams = state.streams[appId] ?? [:]
            if streams.count >= bounds.perApp { throw Refusal.tooManyForApp }
            if streams.values.filter({ $0.principalKey == principalKey }).count >= bounds.perPrincipal { throw Refusal.tooManyForCaller }
            state.nextId += 1
            let subscriber = EventSubscriber(id: state.nextId, appId: appId, principalKey: principalKey, isAdmin: isAdmin, continuation: continuation)
            state.streams[appId, default: [:]][subscriber.id] = subscriber
            return subscriber
        }
        return (subscriber, stream)
    }

    func unsubscribe(_ subscriber: EventSubscriber) {
        state.withLockedValue { state in
            state.streams[subscriber.appId]?[subscriber.id] = nil
            if state.streams[subscriber.appId]?.isEmpty == true { state.streams[subscriber.appId] = nil }
        }
    }

    var streamCount: Int { state.withLockedValue { $0.streams.values.reduce(0) { $0 + $1.count } } }

    private func streams(of appId: String) -> [EventSubscriber] {
        state.withLockedValue { Array(($0.streams[appId] ?? [:]).values) }
    }

    /// An audit entry heard from PostgreSQL: passed on, and whoever lost access by it is let go.
    func deliver(entry: JSONValue) {
        guard let appId = entry["app"]?.stringValue else { return }
        let subscribers = streams(of: appId)
        guard !subscribers.isEmpty else { return }
        let kind = entry["kind"]?.stringValue, action = entry["action"]?.stringValue, resource = entry["resource_id"]?.stringValue ?? ""
        let adminEvent = AppEvent.from(entry: entry, forAdmin: true)
        let memberEvent = AppEvent.from(entry: entry, forAdmin: false)
        for subscriber in subscribers {
            if let event = subscriber.isAdmin ? adminEvent : memberEvent { subscriber.send(.event(event)) }
        }
        // Access changed: the stream ends at once (a changed role reconnects with its new rights).
        var ending: [(EventSubscriber, String)] = []
        switch (kind, action) {
        case ("member", "delete"), ("member", "update"):
            ending = subscribers.filter { $0.principalKey == "user:\(resource)" }.map { ($0, action == "delete" ? "you were removed from this app" : "your role in this app changed") }
        case ("token", "delete"):
            ending = subscribers.filter { $0.principalKey == "token:\(resource)" }.map { ($0, "this token was revoked") }
        case ("app", "archive"):
            ending = subscribers.map { ($0, "this app was archived") }
        default: break
        }
        for (subscriber, reason) in ending { subscriber.end(reason, code: "access") }
        // Whoever lost access is no longer shown as present either (not only after 30 s).
        switch (kind, action) {
        case ("member", "delete"), ("member", "update"): setPresence(appId: appId, entry: nil, who: "user:\(resource)")
        case ("token", "delete"): setPresence(appId: appId, entry: nil, who: "token:\(resource)")
        case ("app", "archive"): state.withLockedValue { $0.presence[appId] = nil }
        default: break
        }
    }

    /// Every stream of the process is told to reload (events may have been missed while the
    /// process was not listening), or ends (the server stops).
    func endAll(_ reason: String, code: String, closing: Bool = false) {
        let all = state.withLockedValue { state -> [EventSubscriber] in
            if closing { state.closed = true }
            return state.streams.values.flatMap(\.values)
        }
        for subscriber in all { subscriber.end(reason, code: code) }
    }

    // MARK: Presence

    /// Whether `who` may update their presence in the app now (one update per interval).
    func admitPresence(appId: String, who: String, now: ContinuousClock.Instant = .now) -> Bool {
        state.withLockedValue { state in
            let key = appId + " " + who
            if let last = state.lastPresence[key], now - last < bounds.presenceInterval { return false }
            state.lastPresence[key] = now
            return true
        }
    }

    /// Presence heard (from this process or another): kept, and the app's streams told when
    /// someone arrived, moved or left (a heartbeat that changes nothing sends nothing).
    func setPresence(appId: String, entry: PresenceEntry?, who: String, now: ContinuousClock.Instant = .now) {
        let changed = state.withLockedValue { state -> Bool in
            var people = state.presence[appId] ?? [:]
            let before = people[who]
            if var entry {
                entry.seen = now
                people[who] = entry
            } else {
                people[who] = nil
            }
            state.presence[appId] = people.isEmpty ? nil : people
            return before?.place != entry?.place || before?.field != entry?.field || before?.name != entry?.name
        }
        if changed { broadcastPresence(appId: appId) }
    }

    /// Forgets presence not heard of within its lifetime; the apps concerned are told.
    func sweepPresence(now: ContinuousClock.Instant = .now) {
        let apps = state.withLockedValue { state -> [String] in
            var touched: [String] = []
            for (appId, people) in state.presence {
                let kept = people.filter { now - $0.value.seen < bounds.presenceLifetime }
                if kept.count != people.count {
                    touched.append(appId)
                    state.presence[appId] = kept.isEmpty ? nil : kept
                }
            }
            state.lastPresence = state.lastPresence.filter { now - $0.value < .seconds(5) }
            return touched
        }
        for appId in apps { broadcastPresence(appId: appId) }
    }

    func presenceEvent(appId: String) -> AppEvent {
        let people = state.withLockedValue { Array(($0.presence[appId] ?? [:]).values) }.sorted { ($0.name, $0.who) < ($1.name, $1.who) }
        return AppEvent(id: 0, name: "presence", data: String(decoding: JSONValue.object(["people": .array(people.map(\.json))]).serialized(), as: UTF8.self))
    }

    private func broadcastPresence(appId: String) {
        let subscribers = streams(of: appId)
        guard !subscribers.isEmpty else { return }
        let event = presenceEvent(appId: appId)
        for subscriber in subscribers { subscriber.send(.event(event)) }
    }
}

/// Listens for every app's events and presence on PostgreSQL, passes them to the hub, and forgets
/// stale presence; on stopping, ends every stream (clients reconnect to another process).
public struct AppEventListener: Service {
    let hub: AppEventHub
    let client: PostgresClient
    let logger: Logger

    public init(hub: AppEventHub, client: PostgresClient, logger: Logger) {
        self.hub = hub
        self.client = client
        self.logger = logger
    }

    public func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await listen() }
            group.addTask { await sweep() }
            try? await gracefulShutdown()
            hub.endAll("the server is stopping: reconnect", code: "stopping", closing: true)
            group.cancelAll()
        }
    }

    func sweep() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(2))
            hub.sweepPresence()
        }
    }

    func listen() async {
        var first = true
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            try await connection.listen(on: appEventsChannel) { notifications in
                                for try await notification in notifications {
                                    guard let entry = try? JSONValue.parse(Array(notification.payload.utf8)) else { continue }
                                    hub.deliver(entry: entry)
                                }
                            }
                        }
                        group.addTask {
                            try await connection.listen(on: presenceChannel) { notifications in
                                for try await notification in notifications {
                                    guard let p = try? JSONValue.parse(Array(notification.payload.utf8)),
                                          let appId = p["app"]?.stringValue, let who = p["who"]?.stringValue
                                    else { continue }
                                    let entry = p["where"]?.stringValue.map {
                                        PresenceEntry(who: who, name: p["name"]?.stringValue ?? "", place: $0, field: p["field"]?.stringValue ?? "", seen: .now)
                                    }
                                    hub.setPresence(appId: appId, entry: entry, who: who)
                                }
                            }
                        }
                        // Listening again after a break: what was sent meanwhile is lost here, so
                        // every stream is told to reload (it replays from its Last-Event-ID).
                        if !first { hub.endAll("events may have been missed: reconnect", code: "missed") }
                        first = false
                        try await group.next()
                        group.cancelAll()
                    }
                }
            } catch {
                if Task.isCancelled || Task.isShuttingDownGracefully { return }
                logger.warning("listening for app events failed; retrying: \(String(reflecting: error))")
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }
}
