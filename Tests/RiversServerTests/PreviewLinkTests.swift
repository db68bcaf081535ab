import Foundation
import Hummingbird
import HummingbirdTesting
import RiversCore
import RiversServices
import RiversStore
import Testing

@testable import RiversServer

/// Issue 27, a draft on a device: preview links serve the current draft at a URL of their own.
@Suite("Preview links")
struct PreviewLinkTests {
    /// The link's public path (the URL without the base).
    func path(_ made: APIResponse) throws -> String {
        let url = try #require(made["url"]?.stringValue)
        let range = try #require(url.range(of: "/preview/"))
        return String(url[range.lowerBound...])
    }

    func person(_ api: TestAPI, role: Role) async throws -> (userId: String, headers: HTTPFields) {
        let user = try await api.store.createUser(email: "pl-\(UUIDText.random().prefix(8))@example.com", name: "Pat", isAdmin: false)
        try await TeamService(storage: api.store).setRole(appId: api.app.id, userId: user.id, role: role)
        let (secret, session) = try await api.store.createSession(userId: user.id, userAgent: "test", address: "")
        return (user.id, [.cookie: "\(SessionCookies.name)=\(secret)", SessionCookies.csrfHeader: session.csrfToken])
    }

    @Test("a preview link serves the draft as it is now, follows every save, makes no version, and is never cached")
    func followsTheDraft() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let screen = try await api.create("screens", screenBody("Home", components: [component("list", source: "feed-1")], extra: ["home": true]))
            let made = try await api.request(.post, "preview-links", json: ["name": "QA phones"])
            #expect(made.status == .created, "\(made.text)")
            #expect(made.headers[.cacheControl] == "no-store", "the URL is shown once")
            #expect(made["name"] == "QA phones")
            let url = try #require(made["url"]?.stringValue)
            #expect(url.hasSuffix("/rivers.json") && url.contains("/preview/rvp_"))
            let link = try path(made)

            let first = try await api.request(.get, link, authorized: false)
            #expect(first.status == .ok, "\(first.text)")
            #expect(first.headers[.cacheControl] == "private, no-store")
            #expect(first.headers[.accessControlAllowOrigin] == "*")
            #expect(first.text.contains("\"Home\""))
            // The same bytes a publish would store now.
            let draft = try await api.request(.get, "draft.json")
            #expect(first.text == draft.text)

            // Unchanged: 304 on the ETag; HEAD has no body.
            let etag = try #require(first.etag)
            #expect(try await api.request(.get, link, headers: [.ifNoneMatch: etag], authorized: false).status == .notModified)
            let head = try await api.request(.head, link, authorized: false)
            #expect(head.status == .ok && head.text.isEmpty && head.etag == etag)

            // A save is served at once.
            let id = try #require(screen["id"]?.stringValue)
            let renamed = try await api.request(.patch, "screens/\(id)", json: ["name": "Home, renamed"], headers: [.ifMatch: "*"])
            #expect(renamed.status == .ok, "\(renamed.text)")
            let second = try await api.request(.get, link, headers: [.ifNoneMatch: etag], authorized: false)
            #expect(second.status == .ok && second.text.contains("Home, renamed") && second.etag != etag)

            // Nothing was published.
            #expect(try await api.request(.get, "versions")["total"] == 0)
            // The list shows the link, never its URL, and when it was last used.
            let list = try await api.request(.get, "preview-links")
            #expect(list["total"] == 1)
            let listed = try #require(list.json.at("items", 0))
            #expect(listed["url"] == nil && listed["name"] == "QA phones" && listed["last_used_at"]?.stringValue != nil)
            #expect(listed["expired"] == false)
        }
    }

    @Test("a draft that could not be published answers its problems as problem+json, each at its pointer")
    func aBrokenDraftAnswersItsProblems() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            // A connected screen with no parent (nothing can open it): a publish stops.
            _ = try await api.create("screens", screenBody("Home", components: [component("list", source: "feed-1")]))
            _ = try await api.create("screens", screenBody("Orphan", extra: ["connected": true]))
            let link = try path(try await api.request(.post, "preview-links", json: [:]))
            let answer = try await api.request(.get, link, authorized: false)
            #expect(answer.status == .conflict, "\(answer.text)")
            #expect(answer.headers[.contentType] == "application/problem+json")
            #expect(answer.headers[.cacheControl] == "private, no-store")
            #expect(answer["type"] == "/problems/draft-has-problems")
            let problems = try await api.request(.get, "problems")
            #expect(answer["error_count"] == problems["count"])
            #expect(answer.pointers == (problems["problems"]?.arrayValue ?? []).compactMap { $0["pointer"]?.stringValue })
            #expect(!answer.pointers.isEmpty)
        }
    }

    @Test("revoked, expired, made-up and archived-app links answer 404 or 410; expiry is bounded")
    func linksEnd() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            _ = try await api.create("screens", screenBody("Home", extra: ["home": true]))
            let made = try await api.request(.post, "preview-links", json: [:])
            let link = try path(made)
            #expect(try await api.request(.get, link, authorized: false).status == .ok)
            let id = try #require(made["id"]?.stringValue)
            #expect(try await api.request(.delete, "preview-links/\(id)").status == .noContent)
            #expect(try await api.request(.get, link, authorized: false).status == .notFound)
            #expect(try await api.request(.delete, "preview-links/\(id)").status == .notFound)

            // Made up: the same shape, or any other text.
            #expect(try await api.request(.get, "/preview/rvp_\(String(repeating: "ab", count: 32))/rivers.json", authorized: false).status == .notFound)
            #expect(try await api.request(.get, "/preview/nope/rivers.json", authorized: false).status == .notFound)

            // Expired: told so (410), for a day; then unknown.
            let soon = try await api.request(.post, "preview-links", json: ["expires_at": .string(Timestamp.format(Date().addingTimeInterval(60)))])
            #expect(soon.status == .created, "\(soon.text)")
            let soonId = try #require(soon["id"]?.stringValue)
            try await TestDatabase.client().query(
                "UPDATE preview_links SET expires_at = now() - interval '1 minute' WHERE id = \(soonId)::uuid", logger: testLogger)
            let expired = try await api.request(.get, try path(soon), authorized: false)
            #expect(expired.status == .gone && expired["type"] == "/problems/preview-link-expired", "\(expired.text)")
            #expect(try await api.request(.get, "preview-links").json.at("items", 0)?["expired"] == true)
            try await TestDatabase.client().query(
                "UPDATE preview_links SET expires_at = now() - interval '2 days' WHERE id = \(soonId)::uuid", logger: testLogger)
            #expect(try await api.request(.get, try path(soon), authorized: false).status == .notFound)

            // Expiry: in the future, within 30 days, RFC 3339.
            for bad: JSONValue in [
                .string(Timestamp.format(Date().addingTimeInterval(-60))), .string(Timestamp.format(Date().addingTimeInterval(31 * 86400))),
                "tomorrow", 5,
            ] {
                let refused = try await api.request(.post, "preview-links", json: ["expires_at": bad])
                #expect(refused.status == .unprocessableContent && refused.pointers == ["/expires_at"], "\(bad): \(refused.text)")
            }
            let unknown = try await api.request(.post, "preview-links", json: ["name": "x", "colour": "red"])
            #expect(unknown.status == .unprocessableContent && unknown.pointers == ["/colour"])

            // An archived app's links serve nothing.
            let live = try path(try await api.request(.post, "preview-links", json: [:]))
            try await AppService(storage: api.store).archive(appId: api.app.id)
            #expect(try await api.request(.get, live, authorized: false).status == .notFound)
        }
    }

    @Test("viewers see preview links, editors make and revoke them; a maker removed or demoted to viewer takes theirs along")
    func rolesAndGrants() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            _ = try await api.create("screens", screenBody("Home", extra: ["home": true]))
            let viewer = try await TeamService(storage: api.store).createToken(appId: api.app.id, name: "v", role: .viewer, createdBy: "test").token
            #expect(try await api.request(.get, "preview-links", token: viewer).status == .ok)
            #expect(try await api.request(.post, "preview-links", json: [:], token: viewer).status == .forbidden)

            // An editor's link goes when the editor is demoted to viewer; another's when removed.
            let demoted = try await person(api, role: .editor), removed = try await person(api, role: .editor)
            let a = try path(try await api.request(.post, "preview-links", json: ["name": "a"], headers: demoted.headers, authorized: false))
            let b = try path(try await api.request(.post, "preview-links", json: ["name": "b"], headers: removed.headers, authorized: false))
            // And a publisher's stays when they are demoted to editor (still allowed to make one).
            let kept = try await person(api, role: .publisher)
            let c = try path(try await api.request(.post, "preview-links", json: ["name": "c"], headers: kept.headers, authorized: false))
            for link in [a, b, c] { #expect(try await api.request(.get, link, authorized: false).status == .ok) }

            #expect(try await api.request(.put, "members/\(demoted.userId)", json: ["role": "viewer"]).status == .ok)
            #expect(try await api.request(.delete, "members/\(removed.userId)").status == .noContent)
            #expect(try await api.request(.put, "members/\(kept.userId)", json: ["role": "editor"]).status == .ok)
            #expect(try await api.request(.get, a, authorized: false).status == .notFound)
            #expect(try await api.request(.get, b, authorized: false).status == .notFound)
            #expect(try await api.request(.get, c, authorized: false).status == .ok)

            // A token's links go with the token.
            let editorToken = try await TeamService(storage: api.store).createToken(appId: api.app.id, name: "e", role: .editor, createdBy: "test")
            let d = try path(try await api.request(.post, "preview-links", json: [:], token: editorToken.token))
            try await TeamService(storage: api.store).revokeToken(appId: api.app.id, id: editorToken.info.id)
            #expect(try await api.request(.get, d, authorized: false).status == .notFound)

            // Made and revoked are in the audit log.
            let audit = try await api.request(.get, "audit?kind=preview_link")
            #expect((audit["items"]?.arrayValue?.count ?? 0) >= 6, "\(audit.text)")
        }
    }

    @Test("an app holds at most 100 preview links")
    func capped() async throws {
        try await withAPI { api in
            // One made through the store, the rest in one statement (a hundred transactions can
            // outlast the test client's first-request timeout on a busy machine).
            _ = try await api.store.createPreviewLink(
                appId: api.app.id, name: "l0", expiresAt: Date().addingTimeInterval(3600), createdBy: "test", grantedBy: .operator)
            try await TestDatabase.client().query(
                """
                INSERT INTO preview_links (id, app_id, secret_hash, name, expires_at)
                SELECT gen_random_uuid(), \(api.app.id)::uuid, decode(md5(random()::text || i::text), 'hex'), 'l' || i, now() + interval '1 hour'
                FROM generate_series(1, \(Limits.maxPreviewLinksPerApp - 1)) AS i
                """, logger: testLogger)
            let refused = try await api.request(.post, "preview-links", json: [:])
            #expect(refused.status == .conflict, "\(refused.text)")
            let page = try await api.request(.get, "preview-links?limit=10&offset=95")
            #expect(page["total"] == .number(Double(Limits.maxPreviewLinksPerApp)) && page["items"]?.arrayValue?.count == 5)
        }
    }
}
