import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import NIOCore
import RiversCore
import RiversServices
import RiversStore
import Testing

@testable import RiversServer

/// One Server-Sent Event as a client reads it.
struct ReadEvent: Sendable {
    var id: Int?
    var name: String
    var data: JSONValue

    /// The event of one block of a stream (the text between two blank lines); nil for a comment.
    static func parse(_ block: Substring) -> ReadEvent? {
        var event = ReadEvent(id: nil, name: "message", data: .null)
        var isComment = true
        for line in block.split(separator: "\n") {
            if line.hasPrefix("id: ") { event.id = Int(line.dropFirst(4)); isComment = false }
            if line.hasPrefix("event: ") { event.name = String(line.dropFirst(7)); isComment = false }
            if line.hasPrefix("data: ") { event.data = (try? JSONValue.parse(Array(line.dropFirst(6).utf8))) ?? .null; isComment = false }
        }
        return isComment ? nil : event
    }

    /// The events of a stream's whole text.
    static func all(_ text: String) -> [ReadEvent] {
        text.components(separatedBy: "\n\n").compactMap { parse(Substring($0)) }
    }
}

/// A stream read with a real HTTP client: its events are collected as they arrive.
final class EventReader: Sendable {
    let status: Int
    let headers: [(String, String)]
    private let events = NIOLockedValueBox<[ReadEvent]>([])
    private let ended = NIOLockedValueBox(false)
    private let task: Task<Void, Never>

    init(response: HTTPClientResponse) {
        status = Int(response.status.code)
        headers = response.headers.map { ($0.name, $0.value) }
        let events = self.events, ended = self.ended
        task = Task {
            var pending = ""
            do {
                for try await chunk in response.body {
                    pending += String(buffer: chunk)
                    while let end = pending.range(of: "\n\n") {
                        let block = pending[..<end.lowerBound]
                        pending = String(pending[end.upperBound...])
                        if let event = ReadEvent.parse(block) { events.withLockedValue { $0.append(event) } }
                    }
                }
            } catch {}
            ended.withLockedValue { $0 = true }
        }
    }

    var all: [ReadEvent] { events.withLockedValue { $0 } }
    var isEnded: Bool { ended.withLockedValue { $0 } }

    /// How long a test waits for what a stream should get. Generous: the whole suite shares two
    /// cores, and a wait ends as soon as the event is there (the latency itself is measured by
    /// `make bench-together`, not here). 5 s was once too short under a full `make test`.
    static let patience: Double = 15

    /// Waits (at most `seconds`) for an event that `matches`.
    func wait(for what: String, seconds: Double = EventReader.patience, _ matches: @escaping (ReadEvent) -> Bool) async throws -> ReadEvent {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if let found = all.first(where: matches) { return found }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("no \(what) within \(seconds) s; received: \(all.map { "\($0.name) \($0.data)" })")
        throw CancellationError()
    }

    func waitForEnd(seconds: Double = EventReader.patience) async throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline, !isEnded { try await Task.sleep(for: .milliseconds(20)) }
        #expect(isEnded, "the stream ended")
    }

    func cancel() { task.cancel() }
}

/// A live server whose event listener runs (as `rivers serve` has it), an app, a token, and a
/// streaming HTTP client.
struct EventsAPI {
    let api: TestAPI
    let port: Int
    let http: HTTPClient
    let hub: AppEventHub

    func open(token: String? = nil, headers: [(String, String)] = []) async throws -> EventReader {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/api/v1/apps/\(api.app.slug)/events")
        request.headers.add(name: "Authorization", value: "Bearer \(token ?? api.token)")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        return EventReader(response: try await http.execute(request, timeout: .seconds(60)))
    }
}

func withEventsAPI(bounds: AppEventHub.Bounds = AppEventHub.Bounds(), _ body: @Sendable (EventsAPI) async throws -> Void) async throws {
    let client = try await TestDatabase.client()
    let store = Store(client: client, logger: testLogger)
    let app = try await AppService(storage: store).create(slug: "ev-\(UUIDText.random().prefix(8))", name: "Events app")
    let token = try await TeamService(storage: store).createToken(appId: app.id).token
    let documents = PublishedDocuments(store: store)
    let hub = AppEventHub(bounds: bounds)
    let router = buildRouter(store: store, configuration: testConfiguration(), documents: documents, events: hub)
    let application = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: testLogger)
    let listener = Task { await AppEventListener(hub: hub, client: client, logger: testLogger).listen() }
    let http = HTTPClient(eventLoopGroupProvider: .singleton)
    do {
        // The listener's LISTEN is in place before the test changes anything.
        try await Task.sleep(for: .milliseconds(300))
        try await application.test(.live) { testClient in
            let api = TestAPI(client: testClient, store: store, app: app, token: token)
            // Open streams end whatever the test did, or the server would wait for them to stop.
            do {
                try await body(EventsAPI(api: api, port: try #require(testClient.port), http: http, hub: hub))
            } catch {
                hub.endAll("test over", code: "stopping", closing: true)
                throw error
            }
            hub.endAll("test over", code: "stopping", closing: true)
        }
    } catch {
        listener.cancel()
        try? await http.shutdown()
        throw error
    }
    listener.cancel()
    try await http.shutdown()
}

@Suite("Together: live streams and presence")
struct AppEventsTests {
    @Test("a save reaches an open stream with what changed; a reconnect with Last-Event-ID replays what it missed")
    func savesReachStreams() async throws {
        try await withEventsAPI { e in
            let stream = try await e.open()
            #expect(stream.status == 200)
            #expect(stream.headers.contains { $0.0.lowercased() == "content-type" && $0.1.hasPrefix("text/event-stream") })
            #expect(stream.headers.contains { $0.0.lowercased() == "x-accel-buffering" && $0.1 == "no" })
            _ = try await stream.wait(for: "the opening presence") { $0.name == "presence" }

            try await e.api.create("families", phoneFamily)
            let screen = try await e.api.create("screens", screenBody("Home"))
            let id = try #require(screen["id"]?.stringValue)
            let renamed = try await e.api.request(.patch, "screens/\(id)", json: ["name": "Start"], headers: [.ifMatch: "*"])
            #expect(renamed.status == .ok)
            let update = try await stream.wait(for: "the rename") { $0.data["resource_id"]?.stringValue == id && $0.data["action"] == "update" }
            #expect(update.name == "change" && update.data["kind"] == "screen" && update.data["revision"] == 2)
            #expect(update.data["fields"] == ["name"])
            let created = try #require(stream.all.first { $0.data["kind"] == "family" && $0.data["action"] == "create" })

            // Reconnecting after the family's event: the screen's two events come first, in order.
            let again = try await e.open(headers: [("Last-Event-ID", String(try #require(created.id)))])
            _ = try await again.wait(for: "the replay") { $0.data["action"] == "update" }
            let replayed = again.all.filter { $0.name == "change" }.map { $0.data["action"]?.stringValue ?? "" }
            #expect(replayed == ["create", "update"])

            // A Last-Event-ID that is not an id is a 400 naming it.
            let bad = try await e.open(headers: [("Last-Event-ID", "x1")])
            #expect(bad.status == 400)
            stream.cancel(); again.cancel(); bad.cancel()
        }
    }

    @Test("presence: who is where reaches every stream of the app, at most every 100 ms a person, forgotten on leaving")
    func presence() async throws {
        // A long interval, so that the second update is surely too soon on a busy machine.
        var bounds = AppEventHub.Bounds()
        bounds.presenceInterval = .seconds(30)
        try await withEventsAPI(bounds: bounds) { e in
            let stream = try await e.open()
            let put = try await e.api.request(.put, "presence", json: ["where": "screens/abc", "field": "/ui_components/2"])
            #expect(put.status == .noContent, "\(put.text)")
            let here = try await stream.wait(for: "presence") { ($0.data["people"]?.arrayValue?.count ?? 0) == 1 }
            let person = try #require(here.data["people"]?.arrayValue?.first)
            #expect(person["where"] == "screens/abc" && person["field"] == "/ui_components/2")
            // Too soon after the last one.
            let soon = try await e.api.request(.put, "presence", json: ["where": "screens/def"])
            #expect(soon.status == .tooManyRequests && soon.headers[.retryAfter] == "1")
            // Bad input: a 422 at the field (checked before the interval).
            let bad = try await e.api.request(.put, "presence", json: ["where": "screens/\u{7}x", "extra": 1])
            #expect(bad.status == .unprocessableContent && Set(bad.pointers) == ["/where", "/extra"], "\(bad.text)")
            #expect(try await e.api.request(.delete, "presence").status == .noContent)
            _ = try await stream.wait(for: "leaving") { $0.name == "presence" && $0.data["people"] == [] && stream.all.filter { $0.name == "presence" }.count > 2 }
            stream.cancel()
        }
    }

    @Test("viewers get content changes without emails and no access events; a removed member's stream and a revoked token's end at once")
    func accessFollowsTheCaller() async throws {
        try await withEventsAPI { e in
            let viewer = try await TeamService(storage: e.api.store).createToken(appId: e.api.app.id, name: "viewer", role: .viewer, createdBy: "test")
            let viewerStream = try await e.open(token: viewer.token)
            let adminStream = try await e.open()
            let user = try await e.api.store.createUser(email: "ev-\(UUIDText.random().prefix(8))@example.com", name: "Grace Hopper", isAdmin: false)
            try await TeamService(storage: e.api.store).setRole(appId: e.api.app.id, userId: user.id, role: .editor)
            let (secret, session) = try await e.api.store.createSession(userId: user.id, userAgent: "test", address: "")
            let personHeaders: HTTPFields = [.cookie: "\(SessionCookies.name)=\(secret)", SessionCookies.csrfHeader: session.csrfToken]
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(e.port)/api/v1/apps/\(e.api.app.slug)/events")
            request.headers.add(name: "Cookie", value: "\(SessionCookies.name)=\(secret)")
            let personStream = EventReader(response: try await e.http.execute(request, timeout: .seconds(60)))
            #expect(personStream.status == 200)

            // The member saves: everyone sees the change; the viewer sees her name, not her email.
            let made = try await e.api.request(.post, "families", json: phoneFamily, headers: personHeaders, authorized: false)
            #expect(made.status == .created, "\(made.text)")
            let seen = try await viewerStream.wait(for: "the family") { $0.data["kind"] == "family" }
            #expect(seen.data["actor"] == "Grace Hopper")
            let adminSeen = try await adminStream.wait(for: "the family") { $0.data["kind"] == "family" }
            #expect(adminSeen.data["actor"]?.stringValue?.contains("@example.com") == true)
            // The member's joining is an access event: admins only.
            _ = try await adminStream.wait(for: "the member") { $0.name == "access" && $0.data["kind"] == "member" }
            #expect(!viewerStream.all.contains { $0.name == "access" })

            // She is present; removed, her stream ends at once, told why, and she is no longer shown.
            #expect(try await e.api.request(.put, "presence", json: ["where": "families/FAMILY_1"], headers: personHeaders, authorized: false).status == .noContent)
            _ = try await adminStream.wait(for: "her presence") { $0.name == "presence" && $0.data["people"]?.arrayValue?.count == 1 }
            #expect(try await e.api.request(.delete, "members/\(user.id)").status == .noContent)
            // (An empty list after the one that showed her: the opening one does not count.)
            let shown = try #require(adminStream.all.lastIndex { $0.name == "presence" && $0.data["people"]?.arrayValue?.count == 1 })
            let deadline = ContinuousClock.now + .seconds(EventReader.patience)
            while ContinuousClock.now < deadline, !adminStream.all.dropFirst(shown + 1).contains(where: { $0.name == "presence" && $0.data["people"] == [] }) {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(adminStream.all.dropFirst(shown + 1).contains { $0.name == "presence" && $0.data["people"] == [] }, "her presence is gone at once")
            let end = try await personStream.wait(for: "the end") { $0.name == "reload" }
            #expect(end.data["code"] == "access" && end.data["reason"] == "you were removed from this app")
            try await personStream.waitForEnd()
            // Revoked: the viewer token's stream ends too; the admin's goes on.
            try await TeamService(storage: e.api.store).revokeToken(appId: e.api.app.id, id: viewer.info.id)
            _ = try await viewerStream.wait(for: "the end") { $0.name == "reload" }
            try await viewerStream.waitForEnd()
            #expect(!adminStream.isEnded)
            #expect(try await e.open(token: viewer.token).status == 401)
            adminStream.cancel()
        }
    }

    @Test("a stream ends when its session does (signed out, here or everywhere) and when its token expires, not only at the next request")
    func endedCredentialsEndStreams() async throws {
        var bounds = AppEventHub.Bounds()
        bounds.heartbeat = .milliseconds(300)
        try await withEventsAPI(bounds: bounds) { e in
            let user = try await e.api.store.createUser(email: "ev-\(UUIDText.random().prefix(8))@example.com", name: "Ada", isAdmin: false)
            try await TeamService(storage: e.api.store).setRole(appId: e.api.app.id, userId: user.id, role: .editor)
            func personStream(_ secret: String) async throws -> EventReader {
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(e.port)/api/v1/apps/\(e.api.app.slug)/events")
                request.headers.add(name: "Cookie", value: "\(SessionCookies.name)=\(secret)")
                return EventReader(response: try await e.http.execute(request, timeout: .seconds(60)))
            }
            let (first, firstSession) = try await e.api.store.createSession(userId: user.id, userAgent: "test", address: "")
            let (second, _) = try await e.api.store.createSession(userId: user.id, userAgent: "test", address: "")
            let (third, thirdSession) = try await e.api.store.createSession(userId: user.id, userAgent: "test", address: "")
            let streams = [try await personStream(first), try await personStream(second), try await personStream(third)]
            #expect(streams.allSatisfy { $0.status == 200 })
            let expiring = try await TeamService(storage: e.api.store).createToken(
                appId: e.api.app.id, name: "contractor", role: .viewer, expiresAt: Date().addingTimeInterval(2), createdBy: "test")
            let tokenStream = try await e.open(token: expiring.token)
            #expect(tokenStream.status == 200)
            let adminStream = try await e.open()

            // Signing out ends that session's stream, told why; the other two go on.
            func cookie(_ secret: String, _ csrf: String) -> HTTPFields { [.cookie: "\(SessionCookies.name)=\(secret)", SessionCookies.csrfHeader: csrf] }
            #expect(try await e.api.request(.delete, "/api/v1/session", headers: cookie(first, firstSession.csrfToken), authorized: false).status == .noContent)
            let end = try await streams[0].wait(for: "the end after signing out") { $0.name == "reload" }
            #expect(end.data["code"] == "access" && end.data["reason"] == "you were signed out")
            try await streams[0].waitForEnd()
            #expect(!streams[1].isEnded && !streams[2].isEnded)
            // Signing out everywhere ends every other stream of the person.
            #expect(try await e.api.request(.delete, "/api/v1/sessions", headers: cookie(third, thirdSession.csrfToken), authorized: false).status == .noContent)
            for stream in streams.dropFirst() {
                let end = try await stream.wait(for: "the end after signing out everywhere") { $0.name == "reload" }
                #expect(end.data["reason"] == "you were signed out")
                try await stream.waitForEnd()
            }
            // The token's stream ends when the token expires, at that moment (not a heartbeat later).
            let expired = try await tokenStream.wait(for: "the end at the expiry") { $0.name == "reload" }
            #expect(expired.data["code"] == "access" && expired.data["reason"] == "this token expired")
            #expect(Date() >= expiring.info.expiresAt!)
            try await tokenStream.waitForEnd()
            #expect(try await e.open(token: expiring.token).status == 401)
            #expect(!adminStream.isEnded)
            adminStream.cancel()
        }
    }

    @Test("streams are bounded per caller; a heartbeat keeps them open")
    func bounded() async throws {
        var bounds = AppEventHub.Bounds()
        bounds.perPrincipal = 2
        bounds.heartbeat = .milliseconds(200)
        try await withEventsAPI(bounds: bounds) { e in
            let a = try await e.open(), b = try await e.open()
            let c = try await e.open()
            #expect(a.status == 200 && b.status == 200)
            #expect(c.status == 429)
            #expect(e.hub.streamCount == 2)
            // Closing one frees its place (found by the next heartbeat's write).
            a.cancel()
            try await Task.sleep(for: .milliseconds(800))
            #expect(try await e.open().status == 200)
            b.cancel()
        }
    }

    @Test("a client that does not read is let go: its queue never passes the bound")
    func slowClientsAreDropped() async throws {
        var bounds = AppEventHub.Bounds()
        bounds.queue = 4
        let hub = AppEventHub(bounds: bounds)
        let (subscriber, stream) = try hub.subscribe(appId: "a", principalKey: "token:t", isAdmin: false)
        for i in 1...10 {
            hub.deliver(entry: ["app": "a", "id": .number(Double(i)), "kind": "screen", "action": "update", "summary": "name"])
        }
        var received = 0
        for await _ in stream { received += 1 }
        #expect(received == 4, "the queue held 4, then the stream ended")
        hub.unsubscribe(subscriber)
        #expect(hub.streamCount == 0)
    }

    @Test("one presence update per person and app an interval; presence runs out unless repeated")
    func presenceBounds() {
        let hub = AppEventHub()
        let start = ContinuousClock.now
        #expect(hub.admitPresence(appId: "a", who: "user:1", now: start))
        #expect(!hub.admitPresence(appId: "a", who: "user:1", now: start + .milliseconds(50)))
        #expect(hub.admitPresence(appId: "a", who: "user:2", now: start + .milliseconds(50)), "another person")
        #expect(hub.admitPresence(appId: "b", who: "user:1", now: start + .milliseconds(50)), "another app")
        #expect(hub.admitPresence(appId: "a", who: "user:1", now: start + .milliseconds(100)))
        hub.setPresence(appId: "a", entry: PresenceEntry(who: "user:1", name: "Ada", place: "screens/x", field: "", seen: start), who: "user:1", now: start)
        #expect(hub.presenceEvent(appId: "a").data.contains("Ada"))
        hub.sweepPresence(now: start + .seconds(29))
        #expect(hub.presenceEvent(appId: "a").data.contains("Ada"))
        hub.sweepPresence(now: start + .seconds(31))
        #expect(hub.presenceEvent(appId: "a").data == #"{"people":[]}"#)
    }

    @Test("an audit entry becomes the event each caller may see")
    func eventShapes() {
        let entry: JSONValue = [
            "id": 7, "app": "a", "kind": "screen", "action": "update", "summary": "name, ui_components", "actor": "Ada Lovelace <ada@example.com>",
            "revision_before": 1, "revision_after": 2, "resource_id": "s1", "at": "2026-01-01T00:00:00.000Z",
        ]
        let member = try? #require(AppEvent.from(entry: entry, forAdmin: false))
        #expect(member?.name == "change" && member?.id == 7)
        #expect(member?.data.contains("\"actor\":\"Ada Lovelace\"") == true)
        #expect(member?.data.contains("\"fields\":[\"name\",\"ui_components\"]") == true)
        #expect(member?.wire.hasPrefix("id: 7\nevent: change\ndata: {") == true)
        #expect(AppEvent.from(entry: ["id": 8, "kind": "token", "action": "delete"], forAdmin: false) == nil)
        #expect(AppEvent.from(entry: ["id": 8, "kind": "token", "action": "delete"], forAdmin: true)?.name == "access")
        #expect(AppEvent.publicName("ada@example.com") == "ada")
        #expect(AppEvent.publicName("token CI") == "token CI")
        #expect(AppEvent.publicName(" <bob@example.com>") == "bob")
    }
}
