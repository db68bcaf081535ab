import Foundation
import Hummingbird
import HummingbirdTesting
import RiversCore
@testable import RiversServer
import RiversServices
import RiversStore
import Testing

/// Handlers tested on the router itself, without a server or sockets (Hummingbird's `.router`
/// test mode), against the real PostgreSQL store.
@Suite("Router: handlers without a live server")
struct RouterTests {
    @Test func theAppContextIsCheckedOnceForEveryAppRoute() async throws {
        let (store, app, token) = try await storeWithApp(slugPrefix: "r")
        let other = try await AppService(storage: store).create(slug: "r-\(UUIDText.random().prefix(8))", name: "Other app")
        let routeLog = RouteLog()
        let router = buildRouter(store: store, configuration: testConfiguration(), documents: PublishedDocuments(store: store), routeLog: routeLog)
        let application = Application(router: router, logger: testLogger)
        let auth: HTTPFields = [.authorization: "Bearer \(token)"]
        try await application.test(.router) { client in
            // The app by slug and by id.
            for key in [app.slug, app.id, app.id.uppercased()] {
                try await client.execute(uri: "/api/v1/apps/\(key)/families", method: .get, headers: auth) { response in
                    #expect(response.status == .ok, "\(key)")
                    let page = try JSONValue.parse(Array(response.body.readableBytesView))
                    #expect(page["total"] == 0)
                }
            }
            // Every route under apps/{app} answers 404 for an app that is not the token's, before
            // its handler runs (nothing is created there).
            let appRoutes = routeLog.routes.filter { $0.contains("/apps/{app}") }
            #expect(appRoutes.count > 30)
            for route in appRoutes {
                let parts = route.split(separator: " ", maxSplits: 1)
                let method = HTTPRequest.Method(String(parts[0]))!
                let path = String(parts[1])
                    .replacingOccurrences(of: "{app}", with: other.slug)
                    .replacingOccurrences(of: "{id}", with: "x")
                    .replacingOccurrences(of: "{number}", with: "1")
                try await client.execute(
                    uri: "/" + path, method: method, headers: auth.merging([.contentType: "application/json"]),
                    body: ByteBuffer(string: #"{"id": "FAMILY_9", "name": "N"}"#)
                ) { response in
                    #expect(response.status == .notFound, "\(route)")
                    #expect(response.headers[.contentType] == "application/problem+json", "\(route)")
                }
            }
            #expect(try await store.listText(.families, appId: other.id, limit: 10, offset: 0).total == 0)
        }
    }
}

extension HTTPFields {
    fileprivate func merging(_ other: HTTPFields) -> HTTPFields {
        var result = self
        for field in other { result[field.name] = field.value }
        return result
    }
}

@Suite("A resource read as its stored text")
struct RecordTextTests {
    func record(_ text: String) -> RecordText {
        RecordText(body: ByteBuffer(string: text), revision: 7, createdAt: Date(timeIntervalSince1970: 1_700_000_000.25),
                   updatedAt: Date(timeIntervalSince1970: 1_700_000_100.5))
    }

    @Test("the bookkeeping is written around the stored object: the same JSON as a parsed record's, for empty and full objects")
    func bookkeepingAroundTheText() throws {
        for text in [#"{}"#, #"{"id": "A", "n": [1, 2.5, {"x": "é\n"}]}"#] {
            let written = try JSONValue.parse(record(text).json.readableBytesView)
            let parsed = Record.json(try JSONValue.parse(Array(text.utf8)), revision: 7, createdAt: Date(timeIntervalSince1970: 1_700_000_000.25),
                                     updatedAt: Date(timeIntervalSince1970: 1_700_000_100.5))
            #expect(written == parsed, "\(text)")
            #expect(written["revision"] == 7)
            #expect(written["created_at"] == "2023-11-14T22:13:20.250Z")
        }
    }

    @Test("text that is not an object (never stored) is parsed, not spliced")
    func notAnObject() throws {
        let written = try JSONValue.parse(record(#"[1]"#).json.readableBytesView)
        #expect(written["revision"] == 7)
        #expect(written.objectValue?.count == 3)
    }
}
