import Foundation
import Hummingbird
import HummingbirdTesting
import RiversCore
import RiversServices
import RiversStore
import Testing

@testable import RiversServer

/// The publishing routes (the check, the draft, publish, versions, diff, rollback, import), the
/// preview links and the public URL they feed, on the router alone (no sockets) over
/// `InMemoryContent`: no PostgreSQL, so in the fast tier. What is tested is HTTP's part and that
/// the in-memory repositories answer as `Store` does (the same routes run on PostgreSQL in
/// `PublishAPITests` and `PreviewLinkTests`).
@Suite("Publishing and preview-link routes on in-memory repositories")
struct PublishRouterTests {
    struct Fixture {
        let application: Application<RouterResponder<RiversContext>>
        let app: App
        let publisher: HTTPFields
        let editor: HTTPFields
        let viewer: HTTPFields
        let storage: InMemoryContent
    }

    static func setUp() async throws -> Fixture {
        let callers = InMemoryCallers()
        let app = callers.addApp(slug: "fast", name: "Fast app")
        let storage = InMemoryContent()
        storage.addApp(app)
        _ = try await FamilyService(storage: storage).create(appId: app.id, body: phoneFamily)
        let (router, routes, log) = apiRouterAlone(callers: callers)
        let open = RouteRegistrar(group: router.group(""), prefix: "", log: log)
        let helpers = APIHelpers(bodyLimit: 64 * 1024)
        let documents = PublishedDocuments(store: storage)
        ScreenController(screens: ScreenService(storage: storage), texts: storage, helpers: helpers).register(on: routes.appScoped())
        PublishController(
            store: storage, publishing: PublishService(storage: storage), imports: ImportService(storage: storage), helpers: helpers,
            documents: documents, baseURL: "http://127.0.0.1"
        ).register(on: routes)
        PreviewLinkController(store: storage, helpers: helpers, baseURL: "http://127.0.0.1").register(api: routes, open: open)
        PublicDocumentController(documents: documents).register(on: open)
        func bearer(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)", .contentType: "application/json"] }
        return Fixture(
            application: Application(router: router, logger: testLogger), app: app,
            publisher: bearer(callers.addToken(app: app, role: .publisher)), editor: bearer(callers.addToken(app: app, role: .editor)),
            viewer: bearer(callers.addToken(app: app, role: .viewer)), storage: storage)
    }

    typealias Answer = ContentRouterTests.Answer

    /// A request to the app's API (`path` below `/api/v1/apps/fast`).
    static func call(
        _ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ path: String, headers: HTTPFields, json: JSONValue? = nil
    ) async throws -> Answer {
        try await ContentRouterTests.call(client, method, path, headers: headers, json: json)
    }

    /// A request to a URL outside the API (a public or preview URL), with no credentials.
    static func open(_ client: some TestClientProtocol, _ path: String, method: HTTPRequest.Method = .get, headers: HTTPFields = [:]) async throws -> Answer {
        try await client.execute(uri: path, method: method, headers: headers, body: nil) { response in
            Answer(status: response.status, headers: response.headers, text: String(buffer: response.body))
        }
    }

    @Test func theDraftIsCheckedPublishedListedComparedAndRolledBack() async throws {
        let f = try await Self.setUp()
        try await f.application.test(.router) { client in
            let made = try await Self.call(
                client, .post, "screens", headers: f.editor, json: screenBody("Home", components: [component("list", source: "feed-1")], extra: ["home": true]))
            #expect(made.status == .created, "\(made.text)")
            let id = try #require(made.json["id"]?.stringValue)

            let check = try await Self.call(client, .get, "problems", headers: f.viewer)
            #expect(check.status == .ok && check.json["count"] == 0 && check.json["problems"] == [], "\(check.text)")
            let draft = try await Self.call(client, .get, "draft.json", headers: f.viewer)
            #expect(draft.status == .ok && draft.json.arrayValue?.count == 1 && draft.text.contains("\"Home\""), "\(draft.text)")
            #expect(draft.headers[.contentLength] == String(draft.text.utf8.count))

            // Publishing takes a publisher; an editor is refused and nothing is made.
            let refused = try await Self.call(client, .post, "publish", headers: f.editor)
            #expect(refused.status == .forbidden && refused.isProblem)
            #expect(f.storage.versions(appId: f.app.id).isEmpty)
            let first = try await Self.call(client, .post, "publish", headers: f.publisher, json: ["note": "first"])
            #expect(first.status == .created && first.json["changed"] == true && first.json.at("version", "number") == 1, "\(first.text)")
            #expect(first.json["public_url"] == "http://127.0.0.1/rivers/fast/rivers.json")
            // The public URL serves the bytes the draft showed.
            let served = try await Self.open(client, "/rivers/fast/rivers.json")
            #expect(served.status == .ok && served.text == draft.text, "\(served.status) \(served.text.prefix(200))")
            // The same draft again adds no version.
            let again = try await Self.call(client, .post, "publish", headers: f.publisher)
            #expect(again.status == .ok && again.json["changed"] == false && again.json.at("version", "number") == 1, "\(again.text)")

            var anyRevision = f.editor
            anyRevision[.ifMatch] = "*"
            #expect(try await Self.call(client, .patch, "screens/\(id)", headers: anyRevision, json: ["name": "Start"]).status == .ok)
            let second = try await Self.call(client, .post, "publish", headers: f.publisher)
            #expect(second.status == .created && second.json.at("version", "number") == 2)

            // Listed newest first, with sizes and not bytes; one read whole; two compared.
            let list = try await Self.call(client, .get, "versions?limit=1", headers: f.viewer)
            #expect(list.json["total"] == 2 && list.json.at("items", 0, "number") == 2 && list.json.at("items", 0, "document") == nil, "\(list.text)")
            let one = try await Self.call(client, .get, "versions/1", headers: f.viewer)
            #expect(one.status == .ok && one.json.at("document", 0, "name") == "Home" && one.json["note"] == "first", "\(one.text)")
            let diff = try await Self.call(client, .get, "versions/diff?from=1&to=2", headers: f.viewer)
            #expect(diff.status == .ok && diff.json["from"] == 1 && diff.json["to"] == 2 && diff.text.contains("Start"), "\(diff.text)")
            let badDiff = try await Self.call(client, .get, "versions/diff?from=one&to=2", headers: f.viewer)
            #expect(badDiff.status == .badRequest && badDiff.isProblem, "\(badDiff.text)")
            let missing = try await Self.call(client, .get, "versions/9", headers: f.viewer)
            #expect(missing.status == .notFound && missing.isProblem)

            // A rollback is a new version holding the old bytes; production serves it.
            let back = try await Self.call(client, .post, "versions/1/rollback", headers: f.publisher)
            #expect(back.status == .created && back.json.at("version", "number") == 3 && back.json.at("version", "rollback_of") == 1, "\(back.text)")
            #expect(try await Self.open(client, "/rivers/fast/rivers.json").text == draft.text)
            #expect(try await Self.call(client, .post, "versions/9/rollback", headers: f.publisher).status == .notFound)
        }
    }

    @Test func aDraftWithProblemsIsNotPublished() async throws {
        let f = try await Self.setUp()
        try await f.application.test(.router) { client in
            _ = try await Self.call(client, .post, "screens", headers: f.editor, json: screenBody("Home", components: [component("list", source: "feed-1")]))
            // A connected screen nothing opens: a publish stops.
            _ = try await Self.call(client, .post, "screens", headers: f.editor, json: screenBody("Orphan", extra: ["connected": true]))
            let check = try await Self.call(client, .get, "problems", headers: f.viewer)
            let pointers = (check.json["problems"]?.arrayValue ?? []).compactMap { $0["pointer"]?.stringValue }
            #expect(check.status == .ok && !pointers.isEmpty && check.json["count"] == .number(Double(pointers.count)), "\(check.text)")
            let refused = try await Self.call(client, .post, "publish", headers: f.publisher)
            #expect(refused.status == .unprocessableContent && refused.isProblem && refused.pointers == pointers, "\(refused.text)")
            #expect(f.storage.versions(appId: f.app.id).isEmpty)
            #expect(try await Self.open(client, "/rivers/fast/rivers.json").status == .notFound)
        }
    }

    @Test func aDocumentIsImportedIntoTheDraftOrReplacesIt() async throws {
        let f = try await Self.setUp()
        let document = try fixture("devportal_API_md_example.json")
        let count = try #require(document.arrayValue?.count)
        try await f.application.test(.router) { client in
            // Editors import; viewers may not; a body that is no JSON is a 422 at the document.
            #expect(try await Self.call(client, .post, "import", headers: f.viewer, json: document).status == .forbidden)
            let broken = try await ContentRouterTests.call(client, .post, "import", headers: f.editor, body: "[{")
            #expect(broken.status == .unprocessableContent && broken.pointers == [""], "\(broken.text)")
            let imported = try await Self.call(client, .post, "import", headers: f.editor, json: document)
            #expect(imported.status == .created && imported.json["screens"]?.arrayValue?.count == count, "\(imported.text)")
            #expect(f.storage.screens(appId: f.app.id).count == count)
            // Again: its ids are taken, so nothing is added.
            let again = try await Self.call(client, .post, "import", headers: f.editor, json: document)
            #expect(again.status == .unprocessableContent && again.isProblem && f.storage.screens(appId: f.app.id).count == count, "\(again.text)")
            // PUT draft.json makes the document the whole draft, and the draft then is that document.
            let replaced = try await Self.call(client, .put, "draft.json", headers: f.editor, json: document)
            #expect(replaced.status == .ok && f.storage.screens(appId: f.app.id).count == count, "\(replaced.text)")
            let draft = try await Self.call(client, .get, "draft.json", headers: f.viewer)
            #expect(draft.json.arrayValue?.compactMap { $0["id"]?.stringValue } == document.arrayValue?.compactMap { $0["id"]?.stringValue })
        }
    }

    /// The preview link's path (its URL without the base).
    func path(_ made: Answer) throws -> String {
        let url = try #require(made.json["url"]?.stringValue)
        return String(url[try #require(url.range(of: "/preview/")).lowerBound...])
    }

    @Test func aBrowsersPreflightIsAnsweredForEveryPublicDocumentPathOfTheRightShape() async throws {
        let f = try await Self.setUp()
        try await f.application.test(.router) { client in
            for path in [
                "/rivers/fast/rivers.json", "/rivers/fast/v2/rivers.json", "/rivers/fast/channels/staging/rivers.json",
                "/rivers/fast/google_play/5.2.1/rivers.json", "/preview/rvp_0123/rivers.json",
            ] {
                let answer = try await Self.open(client, path, method: .options, headers: [.origin: "https://tv.example.com", .accessControlRequestMethod: "GET"])
                #expect(answer.status == .noContent && answer.headers[.accessControlAllowOrigin] == "*", "\(path): \(answer.status)")
                #expect(answer.headers[.accessControlAllowMethods] == "GET, HEAD" && answer.headers[.accessControlAllowHeaders]?.contains("If-None-Match") == true)
                #expect(answer.headers[.accessControlMaxAge] == "86400")
            }
            // The API's answers (not the published documents) may not run or frame anything opened as a page, problems too.
            #expect(try await Self.call(client, .get, "problems", headers: f.viewer).headers[.contentSecurityPolicy] == AnswerSecurityMiddleware.policy)
            #expect(try await Self.call(client, .get, "screens/nope", headers: f.viewer).headers[.contentSecurityPolicy] == AnswerSecurityMiddleware.policy)
            // A path no document can have is the GET's 404, readable from any origin.
            for path in ["/rivers/Fast/rivers.json", "/rivers/fast/v01/rivers.json", "/rivers/fast/channels/Bad%20Name/rivers.json", "/rivers/fast/some_store/1/rivers.json"] {
                let answer = try await Self.open(client, path, method: .options)
                #expect(answer.status == .notFound && answer.headers[.accessControlAllowOrigin] == "*" && answer.headers[.contentType] == "application/problem+json", "\(path): \(answer.status)")
                #expect(try await Self.open(client, path).status == .notFound, "\(path)")
            }
        }
    }

    @Test func aPreviewLinkServesTheDraftUntilItIsRevokedOrExpires() async throws {
        let f = try await Self.setUp()
        try await f.application.test(.router) { client in
            let screen = try await Self.call(client, .post, "screens", headers: f.editor, json: screenBody("Home", extra: ["home": true]))
            let id = try #require(screen.json["id"]?.stringValue)
            // Made by editors, checked field by field.
            #expect(try await Self.call(client, .post, "preview-links", headers: f.viewer, json: [:]).status == .forbidden)
            let bad = try await Self.call(client, .post, "preview-links", headers: f.editor, json: ["name": "", "color": "red"])
            #expect(bad.status == .unprocessableContent && Set(bad.pointers) == ["/name", "/color"], "\(bad.text)")
            let made = try await Self.call(client, .post, "preview-links", headers: f.editor, json: ["name": "QA phones"])
            #expect(made.status == .created && made.headers[.cacheControl] == "no-store" && made.json["name"] == "QA phones", "\(made.text)")
            let link = try path(made)

            let first = try await Self.open(client, link)
            let draft = try await Self.call(client, .get, "draft.json", headers: f.viewer)
            #expect(first.status == .ok && first.text == draft.text, "\(first.text)")
            #expect(first.headers[.cacheControl] == "private, no-store" && first.headers[.accessControlAllowOrigin] == "*")
            let etag = try #require(first.headers[.eTag])
            #expect(try await Self.open(client, link, headers: [.ifNoneMatch: etag]).status == .notModified)
            let head = try await Self.open(client, link, method: .head)
            #expect(head.status == .ok && head.text.isEmpty && head.headers[.eTag] == etag)
            // A save is served at once; nothing was published.
            var anyRevision = f.editor
            anyRevision[.ifMatch] = "*"
            #expect(try await Self.call(client, .patch, "screens/\(id)", headers: anyRevision, json: ["name": "Renamed"]).status == .ok)
            let second = try await Self.open(client, link, headers: [.ifNoneMatch: etag])
            #expect(second.status == .ok && second.text.contains("Renamed") && second.headers[.eTag] != etag)
            #expect(f.storage.versions(appId: f.app.id).isEmpty)

            // Listed for viewers, never with the URL, with when it was last used.
            let list = try await Self.call(client, .get, "preview-links", headers: f.viewer)
            #expect(list.json["total"] == 1 && list.json.at("items", 0, "url") == nil && list.json.at("items", 0, "last_used_at")?.stringValue != nil, "\(list.text)")

            // Revoked: 404, and so is a second revoke; a made-up secret is a 404 too.
            let linkId = try #require(made.json["id"]?.stringValue)
            #expect(try await Self.call(client, .delete, "preview-links/\(linkId)", headers: f.viewer).status == .forbidden)
            #expect(try await Self.call(client, .delete, "preview-links/\(linkId)", headers: f.editor).status == .noContent)
            #expect(try await Self.open(client, link).status == .notFound)
            #expect(try await Self.call(client, .delete, "preview-links/\(linkId)", headers: f.editor).status == .notFound)
            #expect(try await Self.open(client, "/preview/rvp_\(String(repeating: "0", count: 64))/rivers.json").status == .notFound)
            #expect(try await Self.open(client, "/preview/nonsense/rivers.json").status == .notFound)

            // Expired: 410 for a day, then 404.
            let (expired, _) = try await f.storage.createPreviewLink(
                appId: f.app.id, name: "old", expiresAt: Date().addingTimeInterval(-60), createdBy: "test", grantedBy: .operator)
            #expect(try await Self.open(client, "/preview/\(expired)/rivers.json").status == .gone)
            let (longExpired, _) = try await f.storage.createPreviewLink(
                appId: f.app.id, name: "older", expiresAt: Date().addingTimeInterval(-2 * 86400), createdBy: "test", grantedBy: .operator)
            #expect(try await Self.open(client, "/preview/\(longExpired)/rivers.json").status == .notFound)

            // An archived app's links open nothing.
            let live = try path(try await Self.call(client, .post, "preview-links", headers: f.editor, json: [:]))
            #expect(try await Self.open(client, live).status == .ok)
            f.storage.archiveApp(id: f.app.id)
            #expect(try await Self.open(client, live).status == .notFound)
        }
    }

    @Test func previewLinksAreCappedPerApp() async throws {
        let f = try await Self.setUp()
        try await f.application.test(.router) { client in
            for i in 0..<Limits.maxPreviewLinksPerApp {
                _ = try await f.storage.createPreviewLink(
                    appId: f.app.id, name: "link \(i)", expiresAt: Date().addingTimeInterval(3600), createdBy: "test", grantedBy: .operator)
            }
            let over = try await Self.call(client, .post, "preview-links", headers: f.editor, json: [:])
            #expect(over.status == .conflict && over.isProblem, "\(over.text)")
            let page = try await Self.call(client, .get, "preview-links?limit=10&offset=95", headers: f.viewer)
            #expect(page.json["total"] == .number(Double(Limits.maxPreviewLinksPerApp)) && page.json["items"]?.arrayValue?.count == 5, "\(page.text)")
        }
    }
}
