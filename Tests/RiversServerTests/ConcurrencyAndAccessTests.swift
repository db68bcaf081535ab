import Foundation
import Hummingbird
import HummingbirdTesting
import RiversCore
import RiversServer
import RiversServices
import RiversStore
import Testing

@Suite("Revisions, tokens and isolation")
struct ConcurrencyAndAccessTests {
    @Test("a stale If-Match gets 412 and changes nothing")
    func staleRevision() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let screen = try await api.create("screens", screenBody("Home"))
            let id = screen["id"]!.stringValue!
            let first = try await api.request(.patch, "screens/\(id)", json: ["name": "First"], headers: [.ifMatch: screen.etag!])
            #expect(first.status == .ok)
            #expect(first.etag == "\"2\"")
            for method in [HTTPRequest.Method.patch, .put, .delete] {
                let late = try await api.request(method, "screens/\(id)", json: method == .delete ? nil : screenBody("Second"), headers: [.ifMatch: screen.etag!])
                #expect(late.status == .preconditionFailed, "\(method)")
                #expect(late["current_revision"] == 2)
                #expect(late.etag == "\"2\"")
            }
            let now = try await api.request(.get, "screens/\(id)")
            #expect(now["name"] == "First")
            #expect(now["revision"] == 2)
            #expect(try await api.request(.patch, "screens/\(id)", json: ["name": "Any"], headers: [.ifMatch: "*"]).status == .ok)
            let garbage = try await api.request(.patch, "screens/\(id)", json: ["name": "x"], headers: [.ifMatch: "2"])
            #expect(garbage.status == .badRequest)
        }
    }

    @Test("N concurrent PATCHes with the same If-Match: exactly one succeeds")
    func concurrentPatches() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let screen = try await api.create("screens", screenBody("Home"))
            let id = screen["id"]!.stringValue!
            let etag = screen.etag!
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for i in 0..<12 {
                    group.addTask {
                        try await api.request(.patch, "screens/\(id)", json: ["name": .string("Editor \(i)")], headers: [.ifMatch: etag]).status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .ok }.count == 1, "\(statuses)")
            #expect(statuses.filter { $0 == .preconditionFailed }.count == 11, "\(statuses)")
            #expect(try await api.request(.get, "screens/\(id)").json["revision"] == 2)
        }
    }

    @Test("every /api/v1 route needs a valid token")
    func authentication() async throws {
        try await withAPI { api in
            let none = try await api.request(.get, "families", authorized: false)
            #expect(none.status == .unauthorized)
            #expect(none.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            #expect(none.headers[.contentType] == "application/problem+json")
            #expect(try await api.request(.get, "/api/v1/component-types", authorized: false).status == .unauthorized)
            #expect(try await api.request(.get, "families", token: "rvs_not-a-token").status == .unauthorized)
            #expect(try await api.request(.get, "families", headers: [.authorization: "Basic abc"], authorized: false).status == .unauthorized)
            #expect(try await api.request(.get, "/api/v1/apps").json["items"]?.arrayValue?.map { $0["slug"] } == [.string(api.app.slug)])
            #expect(try await api.request(.get, "/api/v1/apps/\(api.app.id)").json["slug"] == .string(api.app.slug))
        }
    }

    @Test("a token for app A gets 404 for anything of app B")
    func isolation() async throws {
        try await withAPI { api in
            let other = try await AppService(storage: api.store).create(slug: "b-\(UUIDText.random().prefix(8))", name: "B")
            let otherToken = try await TeamService(storage: api.store).createToken(appId: other.id).token
            let b = "/api/v1/apps/\(other.slug)"
            #expect(try await api.request(.post, "\(b)/families", json: phoneFamily, token: otherToken).status == .created)
            let screen = try await api.request(.post, "\(b)/screens", json: screenBody("B home"), token: otherToken)
            #expect(screen.status == .created)
            let screenId = screen["id"]!.stringValue!

            for path in ["\(b)", "\(b)/families", "\(b)/families/FAMILY_1", "\(b)/screens/\(screenId)", "/api/v1/apps/\(other.id)/layouts"] {
                #expect(try await api.request(.get, path).status == .notFound, "\(path)")
            }
            #expect(try await api.request(.delete, "\(b)/families/FAMILY_1").status == .notFound)
            #expect(try await api.request(.patch, "\(b)/screens/\(screenId)", json: ["name": "mine"]).status == .notFound)
            // Same ids in app A are A's own.
            #expect(try await api.request(.get, "families/FAMILY_1").status == .notFound)
            #expect(try await api.request(.get, "screens/\(screenId)").status == .notFound)
            #expect(try await api.request(.get, "\(b)/screens/\(screenId)", token: otherToken)["name"] == "B home")
        }
    }

    @Test("unknown routes and methods answer problem+json, never a 500")
    func unknownRoutes() async throws {
        try await withAPI { api in
            let missing = try await api.request(.get, "/api/v1/nothing-here")
            #expect(missing.status == .notFound)
            #expect(missing.headers[.contentType] == "application/problem+json")
            let notAScreen = try await api.request(.get, "screens/not-a-uuid")
            #expect(notAScreen.status == .notFound)
            let patchArray = try await api.request(.patch, "families/X", json: [1, 2])
            #expect(patchArray.status == .unprocessableContent)
        }
    }
}
