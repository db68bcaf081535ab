import Foundation
import Hummingbird
import HummingbirdTesting
import RiversCore
import RiversServices
import RiversStore
import Testing

@testable import RiversServer

/// The content routes (the app, its catalog, screens, families, layouts, plugins, previews, channels, release rules,
/// schedules and webhooks) on the router alone (Hummingbird's `.router`
/// mode: no sockets) over in-memory repositories: no PostgreSQL, so in the fast tier. The API group is the server's own
/// (`apiRoutes`: authentication, app access, problems, and `Idempotency-Key` on in-memory keys
/// where a test asks), on in-memory callers (tokens only); the screens' use cases are
/// `ScreenService`, `FamilyService`, `LayoutService`, `PluginService`, `ReleaseService` and `WebhookService` on `InMemoryContent`. What is tested is HTTP's part: statuses,
/// problem+json with pointers, ETag and If-Match, Location, paging, who may do what.
@Suite("Content routes on in-memory repositories")
struct ContentRouterTests {
    struct Fixture {
        let application: Application<RouterResponder<RiversContext>>
        let app: App
        let admin: HTTPFields
        let editor: HTTPFields
        let viewer: HTTPFields
        let other: HTTPFields
        let storage: InMemoryContent
    }

    static func setUp(idempotency: InMemoryIdempotency? = nil) async throws -> Fixture {
        let callers = InMemoryCallers()
        let app = callers.addApp(slug: "fast")
        let otherApp = callers.addApp(slug: "elsewhere")
        let storage = InMemoryContent()
        storage.addApp(id: app.id, slug: app.slug)
        storage.addApp(id: otherApp.id)
        _ = try await FamilyService(storage: storage).create(appId: app.id, body: phoneFamily)
        let (router, routes, log) = apiRouterAlone(callers: callers, idempotency: idempotency)
        let helpers = APIHelpers(bodyLimit: 64 * 1024)
        FamilyController(families: FamilyService(storage: storage), layouts: LayoutService(storage: storage), texts: storage, helpers: helpers)
            .register(on: routes.appScoped())
        ScreenController(screens: ScreenService(storage: storage), texts: storage, helpers: helpers).register(on: routes.appScoped())
        PluginController(store: storage, plugins: PluginService(storage: storage), helpers: helpers).register(on: routes)
        APIController(store: storage, helpers: helpers, baseURL: "http://127.0.0.1").register(on: routes)
        ReleaseController(
            store: storage, releases: ReleaseService(storage: storage), helpers: helpers,
            documents: PublishedDocuments(store: InMemoryPublishedVersions()), baseURL: "http://127.0.0.1"
        ).register(on: routes)
        WebhookController(store: storage, webhooks: WebhookService(storage: storage, seal: .none), helpers: helpers, allowPrivate: false).register(on: routes)
        #expect(log.routes.count == 53, "\(log.routes)")
        func bearer(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)", .contentType: "application/json"] }
        return Fixture(
            application: Application(router: router, logger: testLogger), app: app,
            admin: bearer(callers.addToken(app: app, role: .admin)), editor: bearer(callers.addToken(app: app, role: .editor)), viewer: bearer(callers.addToken(app: app, role: .viewer)),
            other: bearer(callers.addToken(app: otherApp, role: .admin)), storage: storage)
    }

    /// An answer: status, headers, body parsed (null when it is not JSON).
    struct Answer {
        var status: HTTPResponse.Status
        var headers: HTTPFields
        var text: String
        var json: JSONValue { (try? JSONValue.parse(Array(text.utf8))) ?? .null }
        var pointers: [String] { (json["errors"]?.arrayValue ?? []).compactMap { $0["pointer"]?.stringValue } }
        var isProblem: Bool { headers[.contentType] == "application/problem+json" }
    }

    static func call(
        _ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ path: String, headers: HTTPFields, json: JSONValue? = nil, body: String? = nil
    ) async throws -> Answer {
        let bytes = json.map { ByteBuffer(bytes: $0.serialized()) } ?? body.map { ByteBuffer(string: $0) }
        return try await client.execute(uri: "/api/v1/apps/fast" + (path.isEmpty ? "" : "/" + path), method: method, headers: headers, body: bytes) { response in
            Answer(status: response.status, headers: response.headers, text: String(buffer: response.body))
        }
    }

    @Test func anIdempotencyKeyReplaysAWriteAndRefusesAnotherRequest() async throws {
        let keys = InMemoryIdempotency(limit: 3)
        let f = try await Self.setUp(idempotency: keys)
        try await f.application.test(.router) { client in
            func with(_ key: String, _ headers: HTTPFields) -> HTTPFields {
                var headers = headers
                headers[IdempotencyMiddleware.header] = key
                return headers
            }
            let body = screenBody("Once", components: [component("list", source: "feed-1")])
            let first = try await Self.call(client, .post, "screens", headers: with("key-1", f.editor), json: body)
            #expect(first.status == .created && first.headers[IdempotencyMiddleware.replayedHeader] == nil, "\(first.text)")
            let again = try await Self.call(client, .post, "screens", headers: with("key-1", f.editor), json: body)
            #expect(again.status == .created && again.headers[IdempotencyMiddleware.replayedHeader] == "true")
            #expect(again.text == first.text && again.headers[.location] == first.headers[.location] && again.headers[.eTag] == first.headers[.eTag])
            #expect(f.storage.screens(appId: f.app.id).count == 1, "the replay changed nothing")

            let other = try await Self.call(client, .post, "screens", headers: with("key-1", f.editor), json: screenBody("Twice"))
            #expect(other.status == .unprocessableContent && other.isProblem && other.json["field"] == "Idempotency-Key", "\(other.text)")
            let tooLong = try await Self.call(client, .post, "screens", headers: with(String(repeating: "k", count: 256), f.editor), json: body)
            #expect(tooLong.status == .badRequest && tooLong.json["field"] == "Idempotency-Key")
            // A refused write keeps no key: the same key with the body mended is carried out.
            let refused = try await Self.call(client, .post, "screens", headers: with("key-2", f.editor), json: ["name": ""])
            #expect(refused.status == .unprocessableContent && refused.json["field"] != "Idempotency-Key")
            let mended = try await Self.call(client, .post, "screens", headers: with("key-2", f.editor), json: screenBody("Mended"))
            #expect(mended.status == .created && mended.headers[IdempotencyMiddleware.replayedHeader] == nil, "\(mended.text)")
            // Keys are the caller's own; each caller has a cap of them (3 here).
            let admins = try await Self.call(client, .post, "screens", headers: with("key-1", f.admin), json: screenBody("Admin's"))
            #expect(admins.status == .created && admins.headers[IdempotencyMiddleware.replayedHeader] == nil)
            #expect(try await Self.call(client, .post, "screens", headers: with("key-3", f.editor), json: screenBody("Third")).status == .created)
            let capped = try await Self.call(client, .post, "screens", headers: with("key-4", f.editor), json: screenBody("Fourth"))
            #expect(capped.status == .tooManyRequests && capped.headers[.retryAfter] != nil && capped.json["field"] == "Idempotency-Key", "\(capped.text)")
            // Reads take no key.
            #expect(try await Self.call(client, .get, "screens", headers: with("key-5", f.editor)).status == .ok)
            #expect(keys.count == 4 && f.storage.screens(appId: f.app.id).count == 4)
        }
    }

    @Test func aScreenIsCreatedReadChangedAndRemovedOverHTTP() async throws {
        let f = try await Self.setUp()
        try await f.application.test(.router) { client in
            let created = try await Self.call(client, .post, "screens", headers: f.editor, json: screenBody("Home", components: [component("list", source: "feed-1"), component("list", source: "feed-2")]))
            #expect(created.status == .created, "\(created.text)")
            let id = try #require(created.json["id"]?.stringValue)
            #expect(created.headers[.location] == "/api/v1/apps/\(f.app.slug)/screens/\(id)")
            #expect(created.headers[.eTag] == "\"1\"" && created.json["revision"] == 1 && created.json["home"] == true)

            let app = try await Self.call(client, .get, "", headers: f.viewer)
            #expect(app.status == .ok && app.json["slug"] == "fast", "\(app.text)")
            let read = try await Self.call(client, .get, "screens/\(id)", headers: f.viewer)
            #expect(read.status == .ok && read.text == created.text && read.headers[.eTag] == "\"1\"")
            let list = try await Self.call(client, .get, "screens?limit=1", headers: f.viewer)
            #expect(list.json["total"] == 1 && list.json["items"]?.arrayValue?.first == created.json, "\(list.text)")

            // If-Match: the current revision writes, another is a 412 naming the current one.
            var ifMatch = f.editor
            ifMatch[.ifMatch] = "\"1\""
            let patched = try await Self.call(client, .patch, "screens/\(id)", headers: ifMatch, json: ["name": "Start"])
            #expect(patched.status == .ok && patched.json["name"] == "Start" && patched.headers[.eTag] == "\"2\"", "\(patched.text)")
            let stale = try await Self.call(client, .patch, "screens/\(id)", headers: ifMatch, json: ["name": "Late"])
            #expect(stale.status == .preconditionFailed && stale.isProblem, "\(stale.text)")

            let ids = (patched.json["ui_components"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
            let reordered = try await Self.call(client, .post, "screens/\(id)/reorder", headers: f.editor, json: ["component_ids": .array(ids.reversed().map(JSONValue.string))])
            #expect(reordered.status == .ok && (reordered.json["ui_components"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue } == ids.reversed())

            let put = try await Self.call(client, .put, "screens/\(id)", headers: f.editor, json: screenBody("Replaced"))
            #expect(put.status == .ok && put.json["name"] == "Replaced" && put.json["home"] == true && put.json["revision"] == 4, "\(put.text)")

            var deleteIfMatch = f.editor
            deleteIfMatch[.ifMatch] = "\"4\""
            let deleted = try await Self.call(client, .delete, "screens/\(id)", headers: deleteIfMatch)
            #expect(deleted.status == .noContent && deleted.text.isEmpty)
            let gone = try await Self.call(client, .get, "screens/\(id)", headers: f.viewer)
            #expect(gone.status == .notFound && gone.isProblem)
            #expect(f.storage.screens(appId: f.app.id).isEmpty)
        }
    }

    @Test func badRequestsAreProblemsAtTheirPointersAndChangeNothing() async throws {
        let f = try await Self.setUp()
        try await f.application.test(.router) { client in
            let invalid = try await Self.call(client, .post, "screens", headers: f.editor, json: ["name": 5, "family": "FAMILY_1", "ui_components": [component("list", ["NOPE"])]])
            #expect(invalid.status == .unprocessableContent && invalid.isProblem, "\(invalid.text)")
            #expect(invalid.pointers.contains("/name") && invalid.pointers.contains("/ui_components/0/cell_styles/0"), "\(invalid.pointers)")
            let notJSON = try await Self.call(client, .post, "screens", headers: f.editor, body: "{not json")
            #expect(notJSON.status == .badRequest && notJSON.isProblem, "\(notJSON.text)")

            let made = try await Self.call(client, .post, "screens", headers: f.editor, json: screenBody("Home"))
            let id = try #require(made.json["id"]?.stringValue)
            let notAnObject = try await Self.call(client, .patch, "screens/\(id)", headers: f.editor, json: ["a", "b"])
            #expect(notAnObject.status == .unprocessableContent && notAnObject.pointers == [""], "\(notAnObject.text)")
            let badOrder = try await Self.call(client, .post, "screens/\(id)/reorder", headers: f.editor, json: ["ids": []])
            #expect(badOrder.status == .unprocessableContent && badOrder.pointers.contains("/ids"), "\(badOrder.text)")
            let unknown = try await Self.call(client, .patch, "screens/\(UUIDText.random())", headers: f.editor, json: ["name": "X"])
            #expect(unknown.status == .notFound && unknown.isProblem)
            let notUUID = try await Self.call(client, .get, "screens/nope", headers: f.viewer)
            #expect(notUUID.status == .notFound && notUUID.isProblem)
            #expect(f.storage.screens(appId: f.app.id).map(\.revision) == [1], "nothing was changed by the refused writes")
        }
    }

    @Test func familiesAndLayoutsOverHTTP() async throws {
        let f = try await Self.setUp()
        try await f.application.test(.router) { client in
            let family = try await Self.call(client, .get, "families/FAMILY_1", headers: f.viewer)
            #expect(family.status == .ok && family.json["name"] == "Phones" && family.headers[.eTag] == "\"1\"", "\(family.text)")
            let duplicate = try await Self.call(client, .post, "families", headers: f.editor, json: phoneFamily)
            #expect(duplicate.status == .conflict && duplicate.isProblem, "\(duplicate.text)")

            let layout = try await Self.call(client, .post, "layouts", headers: f.editor, json: [
                "id": "lists", "name": "Lists", "family": "FAMILY_1", "ui_components": [component("list", source: "feed-1")],
            ])
            #expect(layout.status == .created && layout.headers[.location] == "/api/v1/apps/\(f.app.slug)/layouts/lists", "\(layout.text)")
            let fromLayout = try await Self.call(client, .post, "screens", headers: f.editor, json: ["name": "Home", "from_layout": "lists"])
            #expect(fromLayout.status == .created && fromLayout.json["ui_components"]?.arrayValue?.count == 1, "\(fromLayout.text)")

            // A style in use cannot go: 409 naming who uses it.
            let dropped = try await Self.call(client, .patch, "families/FAMILY_1", headers: f.editor, json: ["cell_styles": [["id": "GRID_1", "columns": 2, "aspect_ratio": 1.5]]])
            #expect(dropped.status == .conflict && dropped.isProblem, "\(dropped.text)")
            #expect(dropped.text.contains("lists") && dropped.text.contains("LIST_1"), "\(dropped.text)")
            var ifMatch = f.editor
            ifMatch[.ifMatch] = "\"1\""
            let renamed = try await Self.call(client, .put, "families/FAMILY_1", headers: ifMatch, json: phoneFamily.mergePatched(with: ["name": "Phones and more"]))
            #expect(renamed.status == .ok && renamed.headers[.eTag] == "\"2\"" && renamed.json["name"] == "Phones and more", "\(renamed.text)")
            let bad = try await Self.call(client, .patch, "layouts/lists", headers: f.editor, json: ["ui_components": [component("list", ["NOPE"])]])
            #expect(bad.status == .unprocessableContent && bad.pointers == ["/ui_components/0/cell_styles/0"], "\(bad.text)")
            let list = try await Self.call(client, .get, "layouts", headers: f.viewer)
            #expect(list.json["total"] == 1 && list.json["items"]?.arrayValue?.first?["name"] == "Lists", "\(list.text)")
            let removed = try await Self.call(client, .delete, "layouts/lists", headers: f.editor)
            #expect(removed.status == .noContent)
            let byViewer = try await Self.call(client, .delete, "families/FAMILY_1", headers: f.viewer)
            #expect(byViewer.status == .forbidden && byViewer.isProblem)
        }
    }

    @Test func pluginsOverHTTP() async throws {
        let f = try await Self.setUp()
        try await f.application.test(.router) { client in
            let manifest = try fixture("manifest_qb_admob_inline_banner_ui_component_ios_qb.json")
            let id = try #require(manifest["identifier"]?.stringValue)
            let made = try await Self.call(client, .post, "plugins", headers: f.editor, json: manifest)
            #expect(made.status == .created && made.headers[.location] == "/api/v1/apps/\(f.app.slug)/plugins/\(id)", "\(made.text)")
            let again = try await Self.call(client, .post, "plugins", headers: f.editor, json: manifest)
            #expect(again.status == .ok && again.json["revision"] == 1, "\(again.text)")
            let other = try await Self.call(client, .post, "plugins", headers: f.editor, json: manifest.mergePatched(with: ["description": "Changed"]))
            #expect(other.status == .conflict && other.isProblem, "\(other.text)")
            let wrongId = try await Self.call(client, .put, "plugins/someone-else", headers: f.editor, json: manifest)
            #expect(wrongId.status == .unprocessableContent && wrongId.pointers == ["/identifier"], "\(wrongId.text)")
            let read = try await Self.call(client, .get, "plugins/\(id)", headers: f.viewer)
            #expect(read.status == .ok && read.json["identifier"] == .string(id), "\(read.text)")
            let form = try await Self.call(client, .get, "plugins/\(id)/form", headers: f.viewer)
            #expect(form.status == .ok && form.json.objectValue != nil, "\(form.text)")
            let list = try await Self.call(client, .get, "plugins", headers: f.viewer)
            #expect(list.json["total"] == 1, "\(list.text)")
            let catalog = try await Self.call(client, .get, "component-types", headers: f.viewer)
            let types = (catalog.json["items"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
            #expect(types.contains(id) && types.contains("list"), "\(types)")
            // Its type is in the app's catalog now: a screen may hold it; while one does, it stays.
            let screen = try await Self.call(client, .post, "screens", headers: f.editor, json: screenBody("Ads", components: [component(id, source: "feed-1")]))
            #expect(screen.status == .created, "\(screen.text)")
            let inUse = try await Self.call(client, .delete, "plugins/\(id)", headers: f.editor)
            #expect(inUse.status == .conflict && inUse.isProblem && inUse.text.contains("Ads"), "\(inUse.text)")
            let screenId = try #require(screen.json["id"]?.stringValue)
            #expect(try await Self.call(client, .delete, "screens/\(screenId)", headers: f.editor).status == .noContent)
            let removed = try await Self.call(client, .delete, "plugins/\(id)", headers: f.editor)
            #expect(removed.status == .noContent, "\(removed.text)")
            #expect(try await Self.call(client, .get, "plugins/\(id)", headers: f.viewer).status == .notFound)
        }
    }

    @Test func aSavedScreenIsPreviewed() async throws {
        let f = try await Self.setUp()
        try await f.application.test(.router) { client in
            let made = try await Self.call(client, .post, "screens", headers: f.editor, json: screenBody("Home", components: [component("list", source: "feed-1")]))
            let id = try #require(made.json["id"]?.stringValue)
            let frames = try await Self.call(client, .get, "screens/\(id)/preview?width=320&height=568&scale=2", headers: f.viewer)
            #expect(frames.status == .ok, "\(frames.text)")
            // 320 wide, insets 10/10: one cell a row is 300 wide.
            let first = frames.json["sections"]?.arrayValue?.first?["items"]?.arrayValue?.first?["frame"]
            #expect(first?["x"] == 10 && first?["y"] == 10 && first?["width"] == 300 && first?["height"] == 80, "\(frames.text.prefix(400))")
            let svg = try await Self.call(client, .get, "screens/\(id)/preview?width=320&height=568&format=svg", headers: f.viewer)
            #expect(svg.status == .ok && svg.headers[.contentType]?.hasPrefix("image/svg+xml") == true && svg.text.contains("class=\"cell\""))
            let unknown = try await Self.call(client, .get, "screens/\(UUIDText.random())/preview", headers: f.viewer)
            #expect(unknown.status == .notFound && unknown.isProblem)
        }
    }

    @Test func channelsRulesAndSchedulesOverHTTP() async throws {
        let f = try await Self.setUp()
        // Versions 1 and 2, production at 2.
        let (_, homeId) = try await ScreenService(storage: f.storage).create(appId: f.app.id, body: screenBody("Home", components: [component("list", source: "feed-1")]))
        _ = try await PublishService(storage: f.storage).publish(appId: f.app.id, note: "", publishedBy: "test")
        _ = try await ScreenService(storage: f.storage).update(appId: f.app.id, id: homeId, precondition: .none, edit: .mergePatch(["name": "Start"]))
        _ = try await PublishService(storage: f.storage).publish(appId: f.app.id, note: "", publishedBy: "test")
        try await f.application.test(.router) { client in
            let channels = try await Self.call(client, .get, "channels", headers: f.viewer)
            #expect(channels.status == .ok && channels.json["total"] == 1, "\(channels.text)")
            #expect(channels.json["items"]?.arrayValue?.first?["version"] == 2 && channels.json["items"]?.arrayValue?.first?["public_url"] == "http://127.0.0.1/rivers/fast/rivers.json")

            // Admins move channels; editors and viewers read them.
            #expect(try await Self.call(client, .put, "channels/beta", headers: f.editor, json: ["version": 1]).status == .forbidden)
            let bad = try await Self.call(client, .put, "channels/beta", headers: f.admin, json: ["version": "one", "at": 1])
            #expect(bad.status == .unprocessableContent && bad.isProblem && Set(bad.pointers) == ["/version", "/at"], "\(bad.text)")
            let missing = try await Self.call(client, .put, "channels/beta", headers: f.admin, json: ["version": 3])
            #expect(missing.status == .unprocessableContent && missing.pointers == ["/version"])
            let made = try await Self.call(client, .put, "channels/beta", headers: f.admin, json: ["version": 1, "note": "try"])
            #expect(made.status == .created && made.headers[.eTag] == "\"1\"" && made.json["public_url"] == "http://127.0.0.1/rivers/fast/channels/beta/rivers.json", "\(made.text)")
            var ifMatch = f.admin
            ifMatch[.ifMatch] = "\"1\""
            let moved = try await Self.call(client, .put, "channels/beta", headers: ifMatch, json: ["version": 2])
            #expect(moved.status == .ok && moved.headers[.eTag] == "\"2\"")
            #expect(try await Self.call(client, .put, "channels/beta", headers: ifMatch, json: ["version": 1]).status == .preconditionFailed)
            let read = try await Self.call(client, .get, "channels/beta", headers: f.viewer)
            #expect(read.json["history"]?.arrayValue?.map { $0["version"] } == [2, 1] && read.json["history"]?.arrayValue?.first?["previous_version"] == 1, "\(read.text)")
            let back = try await Self.call(client, .post, "channels/beta/rollback", headers: f.admin, json: [:])
            #expect(back.status == .ok && back.json["version"] == 1, "\(back.text)")
            #expect(try await Self.call(client, .get, "channels/Not%20A%20Name", headers: f.viewer).status == .notFound)

            // Rules name what exists; the resolver says where an app version goes.
            let unknown = try await Self.call(client, .put, "release-rules", headers: f.admin, json: ["rules": [["channel": "qa"], ["version": 9]]])
            #expect(unknown.status == .unprocessableContent && unknown.pointers == ["/rules/0/channel", "/rules/1/version"], "\(unknown.text)")
            let rules = try await Self.call(client, .put, "release-rules", headers: f.admin, json: ["rules": [["store": "apple_store", "below_version": "5.0", "channel": "beta"]]])
            #expect(rules.status == .ok && rules.headers[.eTag] == "\"1\"", "\(rules.text)")
            let resolved = try await Self.call(client, .get, "release-rules/resolve?store=apple_store&app_version=4.2", headers: f.viewer)
            #expect(resolved.json["channel"] == "beta" && resolved.json["version"] == 1 && resolved.json["rule"] == 0, "\(resolved.text)")
            let other = try await Self.call(client, .get, "release-rules/resolve?store=google_play&app_version=4.2", headers: f.viewer)
            #expect(other.json["channel"] == "production" && other.json["version"] == 2, "\(other.text)")
            let inUse = try await Self.call(client, .delete, "channels/beta", headers: f.admin)
            #expect(inUse.status == .conflict && inUse.isProblem, "\(inUse.text)")

            // Schedules: made, listed, cancelled.
            let soon = Timestamp.format(Date().addingTimeInterval(3600))
            let past = try await Self.call(client, .post, "schedules", headers: f.admin, json: ["channel": "production", "version": 1, "at": "2020-01-01T00:00:00Z"])
            #expect(past.status == .unprocessableContent && past.pointers == ["/at"])
            let schedule = try await Self.call(client, .post, "schedules", headers: f.admin, json: ["channel": "production", "version": 1, "at": .string(soon)])
            #expect(schedule.status == .created && schedule.json["state"] == "pending", "\(schedule.text)")
            let id = try #require(schedule.json["id"]?.stringValue)
            let listed = try await Self.call(client, .get, "schedules", headers: f.viewer)
            #expect(listed.json["total"] == 1 && listed.json["items"]?.arrayValue?.first?["id"]?.stringValue == id)
            #expect(try await Self.call(client, .delete, "schedules/\(id)", headers: f.editor).status == .forbidden)
            #expect(try await Self.call(client, .delete, "schedules/\(id)", headers: f.admin).status == .noContent)
            #expect(try await Self.call(client, .get, "schedules", headers: f.viewer).json["items"]?.arrayValue?.first?["state"] == "cancelled")
            #expect(try await Self.call(client, .delete, "schedules/\(UUIDText.random())", headers: f.admin).status == .notFound)

            // Another app's admin sees none of it.
            #expect(try await Self.call(client, .get, "channels", headers: f.other).status == .notFound)
        }
    }

    @Test func webhooksOverHTTP() async throws {
        let f = try await Self.setUp()
        try await f.application.test(.router) { client in
            let body: JSONValue = ["url": "https://hooks.example.com/rivers", "events": ["version.published"], "description": "purge"]
            #expect(try await Self.call(client, .post, "webhooks", headers: f.editor, json: body).status == .forbidden)
            let bad = try await Self.call(client, .post, "webhooks", headers: f.admin, json: ["url": "http://127.0.0.1/x", "events": ["nope"]])
            #expect(bad.status == .unprocessableContent && Set(bad.pointers) == ["/url", "/events/0"], "\(bad.text)")
            let made = try await Self.call(client, .post, "webhooks", headers: f.admin, json: body)
            #expect(made.status == .created && made.headers[.cacheControl] == "no-store" && made.headers[.eTag] == "\"1\"", "\(made.text)")
            #expect(made.json["secret"]?.stringValue?.hasPrefix("whsec_") == true)
            let id = try #require(made.json["id"]?.stringValue)
            let listed = try await Self.call(client, .get, "webhooks", headers: f.viewer)
            #expect(listed.json["total"] == 1 && listed.json["items"]?.arrayValue?.first?["secret"] == nil, "the secret is never listed")

            var ifMatch = f.admin
            ifMatch[.ifMatch] = "\"1\""
            let off = try await Self.call(client, .patch, "webhooks/\(id)", headers: ifMatch, json: ["enabled": false])
            #expect(off.status == .ok && off.json["enabled"] == false && off.json["url"] == "https://hooks.example.com/rivers" && off.headers[.eTag] == "\"2\"")
            #expect(try await Self.call(client, .patch, "webhooks/\(id)", headers: ifMatch, json: ["enabled": true]).status == .preconditionFailed)
            let rotated = try await Self.call(client, .post, "webhooks/\(id)/rotate-secret", headers: f.admin, json: [:])
            #expect(rotated.status == .ok && rotated.json["secret"] != made.json["secret"] && rotated.json["previous_secret_until"]?.stringValue != nil)

            let ping = try await Self.call(client, .post, "webhooks/\(id)/ping", headers: f.admin, json: [:])
            #expect(ping.status == .accepted && ping.json["event"] == "ping" && ping.json["state"] == "pending", "\(ping.text)")
            let deliveryId = try #require(ping.json["id"]?.stringValue)
            let deliveries = try await Self.call(client, .get, "webhooks/\(id)/deliveries", headers: f.viewer)
            #expect(deliveries.json["total"] == 1)
            let delivery = try await Self.call(client, .get, "webhooks/\(id)/deliveries/\(deliveryId)", headers: f.viewer)
            #expect(delivery.json["payload"]?["type"] == "ping" && delivery.json["attempt_log"] == [], "\(delivery.text)")
            #expect(try await Self.call(client, .post, "webhooks/\(id)/deliveries/\(deliveryId)/redeliver", headers: f.admin, json: [:]).status == .accepted)

            #expect(try await Self.call(client, .delete, "webhooks/\(id)", headers: f.admin).status == .noContent)
            let gone = try await Self.call(client, .get, "webhooks/\(id)", headers: f.viewer)
            #expect(gone.status == .notFound && gone.isProblem)
            #expect(try await Self.call(client, .get, "webhooks", headers: f.other).status == .notFound)
        }
    }

    @Test func onlyTheAppsEditorsWrite() async throws {
        let f = try await Self.setUp()
        try await f.application.test(.router) { client in
            let byViewer = try await Self.call(client, .post, "screens", headers: f.viewer, json: screenBody("Home"))
            #expect(byViewer.status == .forbidden && byViewer.isProblem, "\(byViewer.text)")
            let anonymous = try await Self.call(client, .get, "screens", headers: [:])
            #expect(anonymous.status == .unauthorized && anonymous.isProblem)
            let badToken = try await Self.call(client, .get, "screens", headers: [.authorization: "Bearer rvt_nope"])
            #expect(badToken.status == .unauthorized && badToken.isProblem)
            // Another app's token learns nothing of this one.
            let otherApp = try await Self.call(client, .post, "screens", headers: f.other, json: screenBody("Home"))
            #expect(otherApp.status == .notFound && otherApp.isProblem)
            #expect(f.storage.screens(appId: f.app.id).isEmpty)
        }
    }
}
