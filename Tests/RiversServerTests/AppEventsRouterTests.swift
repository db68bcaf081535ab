import Foundation
import Hummingbird
import HummingbirdTesting
import RiversCore
import RiversStore
import Testing

@testable import RiversServer

/// The live stream's routes (`GET events`, `PUT` and `DELETE presence`) on the router alone over
/// in-memory callers and events: no PostgreSQL, so in the fast tier. Events reach the hub here as
/// `AppEventListener` hands them on from PostgreSQL's notifications (`AppEventsTests` runs the
/// whole way on a live server and PostgreSQL). A stream's answer is read once the hub ends it.
@Suite("Live stream routes on in-memory repositories")
struct AppEventsRouterTests {
    struct Fixture {
        let application: Application<RouterResponder<RiversContext>>
        let app: App
        let admin: HTTPFields
        let viewer: HTTPFields
        let other: HTTPFields
        let hub: AppEventHub
        let events: InMemoryAppEvents
    }

    static func setUp(bounds: AppEventHub.Bounds = AppEventHub.Bounds()) -> Fixture {
        let callers = InMemoryCallers()
        let app = callers.addApp(slug: "fast")
        let otherApp = callers.addApp(slug: "elsewhere")
        let (router, routes, _) = apiRouterAlone(callers: callers)
        let hub = AppEventHub(bounds: bounds)
        let events = InMemoryAppEvents()
        AppEventsController(store: events, hub: hub, helpers: APIHelpers(bodyLimit: 64 * 1024), callers: callers).register(on: routes)
        func bearer(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)", .contentType: "application/json"] }
        return Fixture(
            application: Application(router: router, logger: testLogger), app: app,
            admin: bearer(callers.addToken(app: app, role: .admin)), viewer: bearer(callers.addToken(app: app, role: .viewer)),
            other: bearer(callers.addToken(app: otherApp, role: .admin)), hub: hub, events: events)
    }

    typealias Answer = ContentRouterTests.Answer

    /// Opens the app's stream; the answer is whole once the stream ends.
    static func open(_ client: some TestClientProtocol, _ headers: HTTPFields) -> Task<Answer, any Error> {
        Task {
            try await client.execute(uri: "/api/v1/apps/fast/events", method: .get, headers: headers, body: nil) { response in
                Answer(status: response.status, headers: response.headers, text: String(buffer: response.body))
            }
        }
    }

    /// Waits until the hub holds `count` streams; the test stops if it does not within 30 s
    /// (generous: the fast tier's suites share two cores, and bcrypt and layouts can keep a
    /// request's task from starting for seconds; the wait ends as soon as the streams are there).
    static func waitForStreams(_ hub: AppEventHub, _ count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while hub.streamCount < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        try #require(hub.streamCount == count)
    }

    /// Ends every stream, and refuses any opened later: an answer a test waits for always comes
    /// (a stream that subscribed after an `endAll` that lets new ones in would never end).
    static func endStreams(_ hub: AppEventHub) {
        hub.endAll("test over", code: "stopping", closing: true)
    }

    /// An entry as the listener hands it to the hub (migration 12's notification).
    static func notification(_ entry: AuditEntry, appId: String) -> JSONValue {
        var json = entry.eventJSON(actorName: "").objectValue ?? [:]
        json["app"] = .string(appId)
        return .object(json)
    }

    @Test func aStreamReplaysWhatItMissedThenGoesOnLiveAndShowsEachCallerWhatItMaySee() async throws {
        let f = Self.setUp()
        let missed = f.events.add(appId: f.app.id, kind: "screen", resourceId: "s1", action: "create", revisionAfter: 1)
        let replayed = f.events.add(appId: f.app.id, kind: "screen", resourceId: "s1", action: "update", summary: "name, ui_components", revisionBefore: 1, revisionAfter: 2)
        try await f.application.test(.router) { client in
            defer { Self.endStreams(f.hub) }
            var since = f.viewer
            since[AppEventsController.lastEventID] = String(missed.id)
            let viewer = Self.open(client, since)
            let admin = Self.open(client, f.admin)
            // A Last-Event-ID beyond every event (another database's, a client's bug) replays nothing and misses nothing.
            var ahead = f.viewer
            ahead[AppEventsController.lastEventID] = "999999999"
            let beyond = Self.open(client, ahead)
            try await Self.waitForStreams(f.hub, 3)
            // Live: a family saved, a token made (an access event: admins only), an event of another app.
            let family = f.events.add(appId: f.app.id, kind: "family", resourceId: "FAMILY_1", action: "create", revisionAfter: 1)
            let token = f.events.add(appId: f.app.id, kind: "token", resourceId: "t1", action: "create")
            let elsewhere = f.events.add(appId: UUIDText.random(), kind: "screen", resourceId: "s9", action: "create")
            for entry in [family, token] { f.hub.deliver(entry: Self.notification(entry, appId: f.app.id)) }
            f.hub.deliver(entry: Self.notification(elsewhere, appId: UUIDText.random()))
            Self.endStreams(f.hub)

            let seen = try await viewer.value
            #expect(seen.status == .ok && seen.headers[.contentType]?.hasPrefix("text/event-stream") == true)
            #expect(seen.headers[AppEventsController.accelBuffering] == "no" && seen.headers[.cacheControl] == "no-store")
            let read = ReadEvent.all(seen.text)
            #expect(read.compactMap(\.id) == [replayed.id, family.id], "\(seen.text)")
            #expect(read.first { $0.id == replayed.id }?.data["fields"] == ["name", "ui_components"])
            #expect(read.first?.name == "change" && read.contains { $0.name == "presence" })
            #expect(read.last?.name == "reload" && read.last?.data["code"] == "stopping", "the stream ends telling why")
            let adminRead = ReadEvent.all(try await admin.value.text)
            #expect(adminRead.compactMap(\.id) == [family.id, token.id], "admins see access events; a new stream replays nothing")
            #expect(adminRead.first { $0.id == token.id }?.name == "access")
            #expect(ReadEvent.all(try await beyond.value.text).compactMap(\.id) == [family.id])
        }
    }

    @Test func streamsAreRefusedPlainlyAndBoundedPerCaller() async throws {
        var bounds = AppEventHub.Bounds()
        bounds.perPrincipal = 1
        let f = Self.setUp(bounds: bounds)
        try await f.application.test(.router) { client in
            defer { Self.endStreams(f.hub) }
            var bad = f.viewer
            bad[AppEventsController.lastEventID] = "x1"
            let refused = try await Self.open(client, bad).value
            #expect(refused.status == .badRequest && refused.isProblem, "\(refused.text)")
            #expect(try await Self.open(client, [:]).value.status == .unauthorized)
            #expect(try await Self.open(client, f.other).value.status == .notFound, "another app's token")
            #expect(f.hub.streamCount == 0)

            let first = Self.open(client, f.viewer)
            try await Self.waitForStreams(f.hub, 1)
            let second = try await Self.open(client, f.viewer).value
            #expect(second.status == .tooManyRequests && second.headers[.retryAfter] == "5" && second.isProblem, "\(second.text)")
            Self.endStreams(f.hub)
            #expect(try await first.value.status == .ok)
        }
    }

    @Test func presenceIsCheckedPacedAndAnnounced() async throws {
        // A long interval, so that the second update is surely too soon on a busy machine.
        var bounds = AppEventHub.Bounds()
        bounds.presenceInterval = .seconds(30)
        let f = Self.setUp(bounds: bounds)
        try await f.application.test(.router) { client in
            let here = try await ContentRouterTests.call(client, .put, "presence", headers: f.viewer, json: ["where": "screens/abc", "field": "/ui_components/2"])
            #expect(here.status == .noContent, "\(here.text)")
            let announced = try #require(f.events.announced.last.flatMap { try? JSONValue.parse(Array($0.utf8)) })
            #expect(announced["app"]?.stringValue == f.app.id && announced["where"] == "screens/abc" && announced["field"] == "/ui_components/2")
            #expect(f.hub.presenceEvent(appId: f.app.id).wire.contains("screens/abc"))
            let soon = try await ContentRouterTests.call(client, .put, "presence", headers: f.viewer, json: ["where": "screens/def"])
            #expect(soon.status == .tooManyRequests && soon.headers[.retryAfter] == "1")
            let bad = try await ContentRouterTests.call(client, .put, "presence", headers: f.admin, json: ["where": "screens/\u{7}x", "extra": 1])
            #expect(bad.status == .unprocessableContent && Set(bad.pointers) == ["/where", "/extra"], "\(bad.text)")
            #expect(f.events.announced.count == 1, "refused presence is not announced")
            let gone = try await ContentRouterTests.call(client, .delete, "presence", headers: f.viewer)
            #expect(gone.status == .noContent && f.events.announced.count == 2)
            #expect(!f.hub.presenceEvent(appId: f.app.id).wire.contains("screens/abc"))
        }
    }
}
