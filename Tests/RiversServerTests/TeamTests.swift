import Foundation
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import RiversCore
import RiversServices
import RiversStore
import Testing

@testable import RiversServer

/// Issue 12: people, sessions, roles, tokens, invitations and the audit log.
@Suite("Teams: accounts, sessions, roles and the audit log")
struct TeamTests {
    /// A person signed in through the API: the cookie and the CSRF token their browser would send.
    struct Person {
        var cookie: String
        var csrf: String
        var userId: String
        var email: String

        var headers: HTTPFields {
            [.cookie: "\(SessionCookies.name)=\(cookie)", SessionCookies.csrfHeader: csrf]
        }
    }

    static let password = "correct horse battery"

    /// A new account with a password, through the one-time link, signed in.
    func newPerson(_ api: TestAPI, admin: Bool = false) async throws -> Person {
        let email = "p-\(UUIDText.random().prefix(8))@example.com"
        _ = try await api.store.createUser(email: email, name: "P", isAdmin: admin)
        let (secret, _) = try await api.store.createPasswordLink(email: email, createdBy: "test")
        let used = try await api.request(.post, "/api/v1/link", json: ["password": .string(Self.password)], headers: [.linkSecret: secret], authorized: false)
        #expect(used.status == .created, "\(used.text)")
        return try signedIn(used, email: email)
    }

    func signedIn(_ response: APIResponse, email: String) throws -> Person {
        let cookie = try #require(response.headers[.setCookie])
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"))
        let secret = try #require(cookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last)
        return Person(
            cookie: String(secret), csrf: try #require(response["csrf_token"]?.stringValue),
            userId: try #require(response["user"]?["id"]?.stringValue), email: email)
    }

    /// Makes this address one the account has never signed in from.
    func forgetAddresses(_ email: String) async throws {
        try await TestDatabase.client().query(
            "DELETE FROM sign_in_addresses WHERE user_id = (SELECT id FROM users WHERE email = \(email))", logger: testLogger)
    }

    func signIn(_ api: TestAPI, _ email: String, _ password: String) async throws -> APIResponse {
        try await api.request(.post, "/api/v1/session", json: ["email": .string(email), "password": .string(password)], authorized: false)
    }

    @Test func signingInOutAndSessions() async throws {
        try await withAPI { api in
            let person = try await newPerson(api)
            // The link's session works, and a sign-in makes a second one.
            #expect(try await api.request(.get, "/api/v1/session", headers: person.headers, authorized: false)["user"]?["email"]?.stringValue == person.email)
            let second = try signedIn(try await signIn(api, person.email.uppercased(), Self.password), email: person.email)
            let sessions = try await api.request(.get, "/api/v1/sessions", headers: second.headers, authorized: false)
            #expect(sessions["items"]?.arrayValue?.count == 2)
            #expect(sessions["items"]?.arrayValue?.filter { $0["current"] == true }.count == 1)

            // Wrong password and unknown email: the same 401, telling nothing.
            let wrong = try await signIn(api, person.email, "not the password")
            let unknown = try await signIn(api, "nobody-\(UUIDText.random().prefix(6))@example.com", "whatever password")
            #expect(wrong.status == .unauthorized && unknown.status == .unauthorized)
            #expect(wrong["detail"] == unknown["detail"])
            #expect(wrong.headers[.setCookie] == nil)

            // Revoking one session ends it, not the other.
            let firstId = try #require(try await api.request(.get, "/api/v1/session", headers: person.headers, authorized: false)["session_id"]?.stringValue)
            #expect(try await api.request(.delete, "/api/v1/sessions/\(firstId)", headers: second.headers, authorized: false).status == .noContent)
            #expect(try await api.request(.get, "/api/v1/session", headers: person.headers, authorized: false).status == .unauthorized)
            #expect(try await api.request(.get, "/api/v1/session", headers: second.headers, authorized: false).status == .ok)

            // Used after a minute or more: the cookie is sent again, so it lives 14 days from now.
            try await TestDatabase.client().query(
                "UPDATE sessions SET last_seen_at = now() - interval '2 minutes' WHERE user_id = \(person.userId)::uuid", logger: testLogger)
            let renewed = try await api.request(.get, "/api/v1/session", headers: second.headers, authorized: false)
            #expect(renewed.headers[.setCookie]?.contains("Max-Age=\(Int(Store.sessionIdleLifetime))") == true)
            #expect(try await api.request(.get, "/api/v1/session", headers: second.headers, authorized: false).headers[.setCookie] == nil, "once a minute at most")

            // Fourteen days unused: the session is over.
            let client = try await TestDatabase.client()
            let third = try signedIn(try await signIn(api, person.email, Self.password), email: person.email)
            try await client.query("UPDATE sessions SET last_seen_at = now() - interval '15 days' WHERE user_id = \(person.userId)::uuid AND id <> \(try #require(try await api.request(.get, "/api/v1/session", headers: second.headers, authorized: false)["session_id"]?.stringValue))::uuid", logger: testLogger)
            #expect(try await api.request(.get, "/api/v1/session", headers: third.headers, authorized: false).status == .unauthorized)

            // Signing out everywhere ends the rest.
            let out = try await api.request(.delete, "/api/v1/sessions", headers: second.headers, authorized: false)
            #expect(out.status == .noContent)
            #expect(out.headers[.setCookie]?.contains("Max-Age=0") == true)
            #expect(try await api.request(.get, "/api/v1/session", headers: second.headers, authorized: false).status == .unauthorized)
        }
    }

    @Test func aNewPasswordEndsEverySession() async throws {
        try await withAPI { api in
            let person = try await newPerson(api)
            let other = try signedIn(try await signIn(api, person.email, Self.password), email: person.email)
            let short = try await api.request(.post, "/api/v1/password", json: ["current_password": .string(Self.password), "new_password": "short"],
                                              headers: person.headers, authorized: false)
            #expect(short.status == .unprocessableContent)
            #expect(short.pointers == ["/new_password"])
            let wrong = try await api.request(.post, "/api/v1/password", json: ["current_password": "not it at all", "new_password": "a brand new password"],
                                              headers: person.headers, authorized: false)
            #expect(wrong.status == .forbidden)
            let changed = try await api.request(.post, "/api/v1/password", json: ["current_password": .string(Self.password), "new_password": "a brand new password"],
                                                headers: person.headers, authorized: false)
            #expect(changed.status == .ok)
            let renewed = try signedIn(changed, email: person.email)
            #expect(try await api.request(.get, "/api/v1/session", headers: other.headers, authorized: false).status == .unauthorized)
            #expect(try await api.request(.get, "/api/v1/session", headers: person.headers, authorized: false).status == .unauthorized)
            #expect(try await api.request(.get, "/api/v1/session", headers: renewed.headers, authorized: false).status == .ok)
            #expect(try await signIn(api, person.email, "a brand new password").status == .created)
        }
    }

    @Test func failedSignInsAreThrottledPerAccount() async throws {
        try await withAPI { api in
            let person = try await newPerson(api)
            try await forgetAddresses(person.email)
            for _ in 0..<SignInThrottle.failuresPerAccount {
                #expect(try await signIn(api, person.email, "wrong password!").status == .unauthorized)
            }
            // Now even the right password waits, and an unknown email is throttled the same way.
            let throttled = try await signIn(api, person.email, Self.password)
            #expect(throttled.status == .tooManyRequests)
            #expect(Int(throttled.headers[.retryAfter] ?? "") ?? 0 > 0)
            #expect(throttled["type"] == "/problems/too-many-sign-ins")
            let ghost = "ghost-\(UUIDText.random().prefix(6))@example.com"
            for _ in 0..<SignInThrottle.failuresPerAccount { _ = try await signIn(api, ghost, "wrong password!") }
            #expect(try await signIn(api, ghost, "wrong password!").status == .tooManyRequests)
            // The failures were recorded in the instance's audit log.
            let admin = try await newPerson(api, admin: true)
            let audit = try await api.request(.get, "/api/v1/audit?kind=session", headers: admin.headers, authorized: false)
            #expect(audit["items"]?.arrayValue?.contains { $0["action"] == "sign-in-failed" && $0["summary"]?.stringValue == person.email } == true)
        }
    }

    @Test("an address the account signed in from lately is not locked out by failures; others are")
    func theOwnersAddressIsNotLockedOut() async throws {
        try await withAPI { api in
            let owner = try await newPerson(api), other = try await newPerson(api)
            // A password sign-in from here makes this address one the owner uses.
            #expect(try await signIn(api, owner.email, Self.password).status == .created)
            for _ in 0...SignInThrottle.failuresPerAccount {
                #expect(try await signIn(api, owner.email, "wrong password!").status == .unauthorized)
            }
            #expect(try await signIn(api, owner.email, Self.password).status == .created, "the owner still signs in from their address")
            // An account never signed in from here with its password is held, as before (the
            // address its password was chosen from is forgotten first).
            try await forgetAddresses(other.email)
            for _ in 0..<SignInThrottle.failuresPerAccount { _ = try await signIn(api, other.email, "wrong password!") }
            #expect(try await signIn(api, other.email, Self.password).status == .tooManyRequests)
        }
    }

    @Test func cookieWritesNeedTheCSRFTokenAndTheirOwnOrigin() async throws {
        try await withAPI { api in
            let admin = try await newPerson(api, admin: true)
            let family: JSONValue = phoneFamily
            var noToken = admin.headers
            noToken[SessionCookies.csrfHeader] = nil
            let refused = try await api.request(.post, "families", json: family, headers: noToken, authorized: false)
            #expect(refused.status == .forbidden)
            #expect(refused["type"] == "/problems/csrf")
            var wrongToken = admin.headers
            wrongToken[SessionCookies.csrfHeader] = String(repeating: "0", count: admin.csrf.count)
            #expect(try await api.request(.post, "families", json: family, headers: wrongToken, authorized: false).status == .forbidden)
            var foreign = admin.headers
            foreign[.origin] = "https://evil.example"
            let crossOrigin = try await api.request(.post, "families", json: family, headers: foreign, authorized: false)
            #expect(crossOrigin.status == .forbidden)
            #expect(crossOrigin["type"] == "/problems/cross-origin")
            // Reads need no token; a write with it goes through; bearer tokens are unaffected.
            #expect(try await api.request(.get, "families", headers: noToken, authorized: false).status == .ok)
            #expect(try await api.request(.post, "families", json: family, headers: admin.headers, authorized: false).status == .created)
            #expect(try await api.request(.get, "families/FAMILY_1").status == .ok)
        }
    }

    @Test func tokensHaveARoleAnExpiryAndCanBeRevoked() async throws {
        try await withAPI { api in
            let created = try await api.request(.post, "tokens", json: ["name": "ci reader", "role": "viewer"])
            #expect(created.status == .created)
            let viewer = try #require(created["token"]?.stringValue)
            #expect(try await api.request(.get, "families", token: viewer).status == .ok)
            let refused = try await api.request(.post, "families", json: phoneFamily, token: viewer)
            #expect(refused.status == .forbidden)
            #expect(refused["needs"] == "editor")
            let list = try await api.request(.get, "tokens")
            let entry = try #require(list["items"]?.arrayValue?.first { $0["name"] == "ci reader" })
            #expect(entry["role"] == "viewer")
            #expect(entry["created_by"] == "token created with the app")
            #expect(entry["last_used_at"]?.stringValue != nil, "used just now")
            #expect(entry["token"] == nil, "never shown again")
            #expect(try await api.request(.get, "tokens", token: viewer).status == .forbidden)
            // A token says what it is, and nothing else's.
            let itself = try await api.request(.get, "/api/v1/token", token: viewer)
            #expect(itself["token"]?["name"] == "ci reader" && itself["token"]?["role"] == "viewer" && itself["token"]?["expires_at"] == .null)
            #expect(itself["app"]?["slug"]?.stringValue == api.app.slug && itself["app"]?["role"] == "viewer")
            #expect(itself["token"]?["token"] == nil, "the secret is never shown again")
            // Revoked: 401 at once.
            #expect(try await api.request(.delete, "tokens/\(try #require(entry["id"]?.stringValue))").status == .noContent)
            #expect(try await api.request(.get, "families", token: viewer).status == .unauthorized)
            // Expired: 401.
            let soon = try await api.request(.post, "tokens", json: ["name": "short", "role": "viewer", "expires_at": .string(Timestamp.format(Date().addingTimeInterval(3600)))])
            let short = try #require(soon["token"]?.stringValue)
            #expect(try await api.request(.get, "families", token: short).status == .ok)
            try await TestDatabase.client().query("UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = \(try #require(soon["id"]?.stringValue))::uuid", logger: testLogger)
            // Moved behind the server's back (as another process would): seen once the token's
            // lookup, kept for a second, ages out.
            try await Task.sleep(for: .milliseconds(1_100))
            #expect(try await api.request(.get, "families", token: short).status == .unauthorized)
            let past = try await api.request(.post, "tokens", json: ["name": "old", "role": "viewer", "expires_at": "2001-01-01T00:00:00Z"])
            #expect(past.status == .unprocessableContent && past.pointers == ["/expires_at"])
            #expect(try await api.request(.post, "tokens", json: ["name": "x", "role": "owner"]).pointers == ["/role"])
        }
    }

    @Test func anInvitationIsUsedOnceAndGivesItsRole() async throws {
        try await withAPI { api in
            let invited = try await api.request(.post, "invitations", json: ["email": .string("Newcomer-\(UUIDText.random().prefix(6))@Example.com"), "role": "editor"])
            #expect(invited.status == .created, "\(invited.text)")
            let url = try #require(invited["url"]?.stringValue)
            let secret = String(try #require(url.split(separator: "#").last))
            #expect(try await api.request(.get, "invitations")["items"]?.arrayValue?.count == 1)
            let info = try await api.request(.get, "/api/v1/link", headers: [.linkSecret: secret], authorized: false)
            #expect(info["kind"] == "invitation" && info["role"] == "editor" && info["app"]?["slug"]?.stringValue == api.app.slug)
            #expect(info["has_password"] == false)
            let short = try await api.request(.post, "/api/v1/link", json: ["password": "short"], headers: [.linkSecret: secret], authorized: false)
            #expect(short.status == .unprocessableContent, "a refused password does not use the link")
            let accepted = try await api.request(.post, "/api/v1/link", json: ["password": .string(Self.password), "name": "New"], headers: [.linkSecret: secret], authorized: false)
            #expect(accepted.status == .created)
            let person = try signedIn(accepted, email: accepted["user"]?["email"]?.stringValue ?? "")
            #expect(person.email.hasPrefix("newcomer-"), "emails are kept in lower case")
            // Single use.
            #expect(try await api.request(.post, "/api/v1/link", json: ["password": .string(Self.password)], headers: [.linkSecret: secret], authorized: false).status == .gone)
            #expect(try await api.request(.get, "/api/v1/link", headers: [.linkSecret: secret], authorized: false).status == .gone)
            // The app is theirs to edit, not to publish.
            let apps = try await api.request(.get, "/api/v1/apps", headers: person.headers, authorized: false)
            #expect(apps["items"]?.arrayValue?.map { $0["slug"]?.stringValue } == [api.app.slug])
            #expect(apps["items"]?.arrayValue?.first?["role"] == "editor")
            #expect(try await api.request(.post, "families", json: phoneFamily, headers: person.headers, authorized: false).status == .created)
            #expect(try await api.request(.post, "publish", json: [:], headers: person.headers, authorized: false).status == .forbidden)
            let accepted2 = try await api.request(.get, "audit?kind=invitation")["items"]?.arrayValue?.first
            #expect(accepted2?["action"] == "accept" && accepted2?["actor"]?.stringValue == person.email, "the invitee accepted, by name")
            let members = try await api.request(.get, "members")
            #expect(members["items"]?.arrayValue?.first?["role"] == "editor")
            // The admin makes them a viewer: writes are refused from then on.
            #expect(try await api.request(.put, "members/\(person.userId)", json: ["role": "viewer"]).status == .ok)
            #expect(try await api.request(.delete, "families/FAMILY_1", headers: person.headers, authorized: false).status == .forbidden)
            #expect(try await api.request(.delete, "members/\(person.userId)").status == .noContent)
            #expect(try await api.request(.get, "families", headers: person.headers, authorized: false).status == .notFound, "no longer a member: the app is not there")

            // An expired invitation is gone too.
            let late = try await api.request(.post, "invitations", json: ["email": "late@example.com", "role": "viewer"])
            let lateSecret = String(try #require(late["url"]?.stringValue?.split(separator: "#").last))
            try await TestDatabase.client().query("UPDATE links SET expires_at = now() - interval '1 second' WHERE id = \(try #require(late["invitation"]?["id"]?.stringValue))::uuid", logger: testLogger)
            #expect(try await api.request(.post, "/api/v1/link", json: ["password": .string(Self.password)], headers: [.linkSecret: lateSecret], authorized: false).status == .gone)
            #expect(try await api.request(.get, "/api/v1/link", headers: [.linkSecret: "rvl_unknown"], authorized: false).status == .notFound)
            let missing = try await api.request(.post, "/api/v1/link", json: ["password": .string(Self.password)], authorized: false)
            #expect(missing.status == .badRequest && missing["field"] == "X-Link-Secret", "\(missing.text)")
            // The secret in the path still works (deprecated: paths end up in access logs).
            #expect(try await api.request(.get, "/api/v1/links/\(lateSecret)", authorized: false).status == .gone)
            #expect(try await api.request(.get, "/api/v1/links/rvl_unknown", authorized: false).status == .notFound)
        }
    }

    @Test func everyChangeIsAuditedInItsOwnTransaction() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let screen = try await api.create("screens", screenBody("Home", components: [component("list", source: "feed-1")]))
            let id = try #require(screen["id"]?.stringValue)
            #expect(try await api.request(.patch, "screens/\(id)", json: ["name": "Start"]).status == .ok)
            #expect(try await api.request(.post, "publish", json: ["note": "first"]).status == .created)
            // A refused change (the family is in use) leaves no entry.
            #expect(try await api.request(.delete, "families/FAMILY_1").status == .conflict)

            let audit = try await api.request(.get, "audit")
            let items = try #require(audit["items"]?.arrayValue)
            let actions = items.map { "\($0["kind"]?.stringValue ?? "") \($0["action"]?.stringValue ?? "")" }
            #expect(Array(actions.prefix(4)) == ["version publish", "screen update", "screen create", "family create"])
            #expect(!actions.contains("family delete"))
            let update = items[1]
            #expect(update["actor"] == "token created with the app" && update["actor_kind"] == "token")
            #expect(update["revision_before"] == 1 && update["revision_after"] == 2)
            #expect(update["summary"] == "name")
            #expect(update["resource_id"]?.stringValue == id)
            #expect(update["request_id"]?.stringValue?.isEmpty == false)
            // Filters.
            let screens = try await api.request(.get, "audit?kind=screen&id=\(id)")
            #expect(screens["items"]?.arrayValue?.count == 2)
            #expect(try await api.request(.get, "audit?since=2999-01-01T00:00:00Z")["items"]?.arrayValue?.isEmpty == true)
            #expect(try await api.request(.get, "audit?since=yesterday").status == .badRequest)
            // An import is one entry of its own, beside those of what it wrote.
            let imported = try await api.request(.post, "import", json: [["id": .string(UUIDText.random()), "name": "Shows", "styles": ["family": "FAMILY_1"]]])
            #expect(imported.status == .created, "\(imported.text)")
            let after = try await api.request(.get, "audit?limit=2")["items"]?.arrayValue ?? []
            #expect(after.map { "\($0["kind"]?.stringValue ?? "") \($0["action"]?.stringValue ?? "")" } == ["app import", "screen create"])
            #expect(after.first?["summary"]?.stringValue?.hasPrefix("1 screen(s)") == true)
            // A connected screen listed before its parent is still written whole: one entry a screen.
            let parentId = UUIDText.random(), childId = UUIDText.random()
            let family: JSONValue = ["family": "FAMILY_1"]
            let withChild = try await api.request(.post, "import", json: [
                ["id": .string(childId), "name": "Show", "styles": family, "data": ["connected": true, "parent": .string(parentId)]],
                ["id": .string(parentId), "name": "Shows 2", "styles": family],
            ])
            #expect(withChild.status == .created, "\(withChild.text)")
            #expect(withChild["screens"]?.arrayValue?.map { $0["id"] } == [.string(childId), .string(parentId)], "in the document's order")
            let written = try await api.request(.get, "audit?limit=3")["items"]?.arrayValue ?? []
            #expect(written.map { "\($0["kind"]?.stringValue ?? "") \($0["action"]?.stringValue ?? "") \($0["resource_id"]?.stringValue ?? "")" }
                    == ["app import \(api.app.id)", "screen create \(childId)", "screen create \(parentId)"])
            #expect(try await api.request(.get, "screens/\(childId)")["parent"] == .string(parentId))
            // Versions say who published by name.
            #expect(try await api.request(.get, "versions")["items"]?.arrayValue?.first?["published_by"] == "token created with the app")

            // A transaction rolled back leaves nothing; entries cannot be changed or removed.
            let client = try await TestDatabase.client()
            let before = try await api.store.auditEntries(appId: api.app.id, filter: AuditFilter(), limit: 200, offset: 0).total
            try await client.withConnection { connection in
                try await connection.query("BEGIN", logger: testLogger)
                try await connection.query(
                    "INSERT INTO families (app_id, id, body) VALUES (\(api.app.id)::uuid, 'GHOST', '{\"name\": \"ghost\"}')", logger: testLogger)
                try await connection.query("ROLLBACK", logger: testLogger)
            }
            #expect(try await api.store.auditEntries(appId: api.app.id, filter: AuditFilter(), limit: 200, offset: 0).total == before)
            // A page past the last still says how many there are (no row of it carries the count).
            let past = try await api.store.auditEntries(appId: api.app.id, filter: AuditFilter(), limit: 10, offset: before + 5)
            #expect(past.entries.isEmpty && past.total == before && !past.capped)
            let apps = try await api.store.apps(visibleTo: nil, search: api.app.slug, limit: 10, offset: 0)
            let pastApps = try await api.store.apps(visibleTo: nil, search: api.app.slug, limit: 10, offset: apps.total + 3)
            #expect(apps.total >= 1 && pastApps.apps.isEmpty && pastApps.total == apps.total)
            await #expect(throws: PSQLError.self) {
                try await client.query("UPDATE audit_log SET actor = 'someone else' WHERE app_id = \(api.app.id)::uuid", logger: testLogger)
            }
            await #expect(throws: PSQLError.self) {
                try await client.query("DELETE FROM audit_log WHERE app_id = \(api.app.id)::uuid", logger: testLogger)
            }
        }
    }

    @Test func renamingArchivingRestoringAndPurgingAnApp() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            _ = try await api.create("screens", screenBody("Home", components: [component("list", source: "feed-1")]))
            #expect(try await api.request(.post, "publish").status == .created)
            let old = api.app.slug, new = "renamed-\(UUIDText.random().prefix(6))"
            let renamed = try await api.request(.patch, "", json: ["slug": .string(new), "name": "Renamed"])
            #expect(renamed.status == .ok)
            #expect(renamed["slug"]?.stringValue == new && renamed["name"] == "Renamed")
            #expect(try await api.request(.get, "/api/v1/apps/\(new)")["name"] == "Renamed")
            #expect(try await api.request(.get, "/api/v1/apps/\(old)").status == .notFound)
            #expect(try await api.request(.patch, "/api/v1/apps/\(new)", json: ["slug": "Not A Slug"]).pointers == ["/slug"])

            let documents = PublishedDocuments(store: api.store)
            let router = buildRouter(store: api.store, configuration: testConfiguration(), documents: documents)
            try await Application(router: router, logger: testLogger).test(.router) { client in
                func status(_ uri: String) async throws -> (HTTPResponse.Status, String?) {
                    try await client.execute(uri: uri, method: .get) { response in
                        // Every public answer, problems too, is open to every origin (web clients read it);
                        // no problem is kept by a cache (a CDN would go on answering it after a publish).
                        #expect(response.headers[.accessControlAllowOrigin] == "*", "\(uri) \(response.status)")
                        if response.status.code >= 400 { #expect(response.headers[.cacheControl] == "no-store", "\(uri) \(response.status)") }
                        return (response.status, response.headers[.location])
                    }
                }
                try await documents.reloadAll()
                #expect(try await status("/rivers/\(old)/rivers.json") == (.movedPermanently, "/rivers/\(new)/rivers.json"))
                #expect(try await status("/rivers/\(old)/v1/rivers.json") == (.movedPermanently, "/rivers/\(new)/v1/rivers.json"))
                #expect(try await status("/rivers/\(new)/rivers.json").0 == .ok)

                // Deleting archives: the API and the app's tokens stop, the public URLs are gone.
                #expect(try await api.request(.delete, "/api/v1/apps/\(new)").status == .noContent)
                #expect(try await api.request(.get, "/api/v1/apps/\(new)").status == .unauthorized)
                try await documents.reloadAll()
                #expect(try await status("/rivers/\(new)/rivers.json").0 == .gone)
                #expect(try await status("/rivers/\(new)/v1/rivers.json").0 == .gone)
                #expect(try await status("/rivers/\(old)/rivers.json").0 == .gone)
                #expect(try await api.store.archivedApps().apps.contains { $0.slug == new })

                // Restored, everything is back as it was.
                #expect(try await AppService(storage: api.store).restore(new)?.slug == new)
                try await documents.reloadAll()
                #expect(try await status("/rivers/\(new)/rivers.json").0 == .ok)
                #expect(try await api.request(.get, "/api/v1/apps/\(new)").status == .ok)

                // Purged (only once archived): gone for good, audit entries too.
                #expect(try await AppService(storage: api.store).purge(new) == nil, "an app in use cannot be purged")
                try await AppService(storage: api.store).archive(appId: api.app.id)
                #expect(try await AppService(storage: api.store).purge(new)?.id == api.app.id)
                #expect(try await api.store.auditEntries(appId: api.app.id, filter: AuditFilter(), limit: 10, offset: 0).total == 0)
                try await documents.reloadAll()
                #expect(try await status("/rivers/\(new)/rivers.json").0 == .notFound)
                #expect(try await status("/rivers/\(old)/rivers.json").0 == .notFound)
            }
        }
    }

    /// What an app admin holding a link or choosing a slug must not be able to do.
    @Test func adminsCannotTakeOverAccountsRolesOrOldSlugs() async throws {
        try await withAPI { api in
            // An account without a password yet (made by an instance admin): an invitation to it
            // cannot set its password, since whoever invited holds the link.
            let email = "fresh-\(UUIDText.random().prefix(6))@example.com"
            _ = try await api.store.createUser(email: email, name: "", isAdmin: true)
            let invited = try await api.request(.post, "invitations", json: ["email": .string(email), "role": "viewer"])
            let secret = String(try #require(invited["url"]?.stringValue?.split(separator: "#").last))
            let taken = try await api.request(.post, "/api/v1/links/\(secret)", json: ["password": "the inviter's password"], authorized: false)
            #expect(taken.status == .conflict)
            #expect(taken.headers[.setCookie] == nil)
            #expect(try await api.store.user(email: email)?.passwordHash == nil, "the password was not set")
            #expect(try await api.request(.get, "/api/v1/links/\(secret)", authorized: false).status == .ok, "the link was not spent")

            // Accepting an invitation never lowers a role (nor takes the last admin away).
            let boss = try await newPerson(api)
            try await TeamService(storage: api.store).setRole(appId: api.app.id, userId: boss.userId, role: .admin)
            let demote = try await api.request(.post, "invitations", json: ["email": .string(boss.email), "role": "viewer"])
            let demoteSecret = String(try #require(demote["url"]?.stringValue?.split(separator: "#").last))
            #expect(try await api.request(.post, "/api/v1/links/\(demoteSecret)", json: ["password": .string(Self.password)], authorized: false).status == .created)
            #expect(try await api.store.role(userId: boss.userId, appId: api.app.id) == .admin)
            // The last admin stays, however the id is written.
            let upper = boss.userId.uppercased()
            #expect(try await api.request(.put, "members/\(upper)", json: ["role": "viewer"]).status == .conflict)
            #expect(try await api.request(.delete, "members/\(upper)").status == .conflict)
            #expect(try await api.store.role(userId: boss.userId, appId: api.app.id) == .admin)
            let members = try await api.request(.get, "members")["items"]?.arrayValue ?? []
            #expect(members.allSatisfy { $0["admin"] == nil && $0["has_password"] == nil }, "members do not reveal instance admins")

            // Another app's former slug stays its own while it redirects.
            let old = api.app.slug
            #expect(try await api.request(.patch, "", json: ["slug": .string("moved-\(UUIDText.random().prefix(6))")]).status == .ok)
            let other = try await AppService(storage: api.store).create(slug: "other-\(UUIDText.random().prefix(6))", name: "Other")
            let otherToken = try await TeamService(storage: api.store).createToken(appId: other.id).token
            let grab = try await api.request(.patch, "/api/v1/apps/\(other.slug)", json: ["slug": .string(old)], token: otherToken)
            #expect(grab.status == .conflict, "\(grab.text)")
            await #expect(throws: StoreError.self) { try await AppService(storage: api.store).create(slug: old, name: "Squatter") }

            // Sign-ins name who signed in.
            let admin = try await newPerson(api, admin: true)
            let log = try await api.request(.get, "/api/v1/audit?kind=session&actor=\(boss.email)", headers: admin.headers, authorized: false)
            #expect(log["items"]?.arrayValue?.contains { $0["action"] == "sign-in" } == true)
        }
    }

    /// Links go to the delivery hook too (where an operator plugs in mail).
    @Test func newLinksReachTheDeliveryHook() async throws {
        final class Recorder: LinkDelivery, @unchecked Sendable {
            let lock = NSLock()
            var seen: [(String, String)] = []
            func deliver(_ link: OneTimeLink, url: String) async {
                lock.withLock { seen.append((link.email, url)) }
            }
        }
        let recorder = Recorder()
        try await withAPI { api in
            var configuration = testConfiguration()
            configuration.linkDelivery = recorder
            let router = buildRouter(store: api.store, configuration: configuration, documents: PublishedDocuments(store: api.store))
            try await Application(router: router, logger: testLogger).test(.router) { client in
                let url = try await client.execute(
                    uri: "\(api.base)/invitations", method: .post,
                    headers: [.authorization: "Bearer \(api.token)", .contentType: "application/json"],
                    body: ByteBuffer(string: #"{"email": "mailed@example.com", "role": "viewer"}"#)
                ) { response in
                    #expect(response.status == .created)
                    return try JSONValue.parse(Array(String(buffer: response.body).utf8))["url"]?.stringValue
                }
                #expect(recorder.lock.withLock { recorder.seen.map(\.0) } == ["mailed@example.com"])
                #expect(recorder.lock.withLock { recorder.seen.first?.1.contains("/link.html#rvl_") } == true)
                // Mailed to the invitee: the admin who invited never holds the link (for an email
                // with no account yet, whoever holds it chooses the account's password).
                #expect(url == nil)
            }
        }
    }

    /// Behind proxies (`TRUSTED_PROXY_HOPS`), the client is what the nearest trusted proxy saw.
    @Test func theClientAddressBehindProxies() throws {
        typealias A = AuthMiddleware
        #expect(A.clientAddress(forwardedFor: ["203.0.113.9"], peer: "10.0.0.1", hops: 1) == "203.0.113.9")
        #expect(A.clientAddress(forwardedFor: ["1.1.1.1, 203.0.113.9"], peer: "10.0.0.1", hops: 1) == "203.0.113.9", "the client's own claim is not trusted")
        #expect(A.clientAddress(forwardedFor: ["1.1.1.1", "203.0.113.9, 10.0.0.2"], peer: "10.0.0.1", hops: 2) == "203.0.113.9")
        #expect(A.clientAddress(forwardedFor: [], peer: "10.0.0.1", hops: 1) == "10.0.0.1", "not through the proxy")
        #expect(A.clientAddress(forwardedFor: ["203.0.113.9"], peer: "10.0.0.1", hops: 0) == "10.0.0.1")
        #expect(A.clientAddress(forwardedFor: [String(repeating: "1,", count: 3000)], peer: "10.0.0.1", hops: 1) == "10.0.0.1")
        #expect(try ServerConfiguration.fromEnvironment(["TRUSTED_PROXY_HOPS": "1"]).trustedProxyHops == 1)
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.fromEnvironment(["TRUSTED_PROXY_HOPS": "-1"]) }
    }

    /// A fresh session's cookie and CSRF header (a route may end the session it is called with).
    @Test("the apps list searches slugs and names in any case, matching % and _ literally; a token sees its app only when it matches")
    func appsSearch() async throws {
        try await withAPI { api in
            let admin = try await newPerson(api, admin: true)
            let tag = String(UUIDText.random().prefix(6))
            for (slug, name) in [("s-\(tag)-alpha", "Alpha News"), ("s-\(tag)-beta", "Beta 100% Sport"), ("s-\(tag)-gamma", "Gamma_TV")] {
                _ = try await AppService(storage: api.store).create(slug: slug, name: name)
            }
            func slugs(_ q: String, headers: HTTPFields? = nil, token: String? = nil) async throws -> [String] {
                let encoded = q.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? q
                let page = try await api.request(.get, "/api/v1/apps?q=\(encoded)", headers: headers ?? [:], token: token, authorized: token != nil)
                #expect(page.status == .ok, "\(page.text)")
                return page["items"]?.arrayValue?.compactMap { $0["slug"]?.stringValue } ?? []
            }
            #expect(try await slugs("\(tag)", headers: admin.headers) == ["s-\(tag)-alpha", "s-\(tag)-beta", "s-\(tag)-gamma"])
            #expect(try await slugs("ALPHA NEWS", headers: admin.headers) == ["s-\(tag)-alpha"])
            #expect(try await slugs("100%", headers: admin.headers) == ["s-\(tag)-beta"])
            #expect(try await slugs("a_n", headers: admin.headers).isEmpty, "_ is a character, not any character (\"Alpha News\" has \"a N\")")
            #expect(try await slugs("gamma_tv", headers: admin.headers) == ["s-\(tag)-gamma"])
            #expect(try await slugs(api.app.slug, token: api.token) == [api.app.slug])
            #expect(try await slugs("\(tag)", token: api.token).isEmpty)
            let long = try await api.request(.get, "/api/v1/apps?q=\(String(repeating: "x", count: 101))", headers: admin.headers, authorized: false)
            #expect(long.status == .badRequest && long["field"] == "q")
            // An app read by its key says the caller's role in it.
            #expect(try await api.request(.get, "")["role"] == "admin")
        }
    }

    @Test("an audit page and its count read the newest 10,000 matching entries at most; older ones are reached with until")
    func auditPagesAreBounded() async throws {
        try await withAPI { api in
            // 10,050 old entries (as years of activity would leave), then one fresh change.
            try await api.store.client.query(
                """
                INSERT INTO audit_log (app_id, at, actor, actor_kind, kind, resource_id, action)
                SELECT \(api.app.id)::uuid, timestamptz '2020-01-01' + n * interval '1 minute', 'token old', 'token', 'screen', 'x', 'update'
                FROM generate_series(1, 10050) AS n
                """, logger: testLogger)
            try await api.create("families", phoneFamily)
            let first = try await api.request(.get, "audit?limit=200")
            #expect(first["total"] == 10_000 && first["total_capped"] == true, "\(first.text.prefix(300))")
            #expect(first["items"]?.arrayValue?.first?["kind"] == "family", "newest first")
            let last = try await api.request(.get, "audit?limit=200&offset=9900")
            #expect(last["items"]?.arrayValue?.count == 100 && last["next_offset"] == .null)
            let beyond = try await api.request(.get, "audit?offset=10001")
            #expect(beyond.status == .badRequest && beyond["field"] == "offset")
            // Narrowed by date, the older ones are there, and counted exactly below the window.
            let older = try await api.request(.get, "audit?until=2020-01-02T00:00:00Z&limit=1")
            #expect(older["total"] == 1439 && older["total_capped"] == false, "\(older.text.prefix(300))")
            #expect(older["items"]?.arrayValue?.first?["at"]?.stringValue?.hasPrefix("2020-01-01T23:59") == true)
        }
    }

    @Test("AUDIT_LOG_DAYS: entries older than that go, a batch per transaction, every app's and the instance's; nothing else may remove one")
    func auditLogRetention() async throws {
        // A database of its own: trimming reads the whole log, and other tests write old entries.
        let (client, _) = try await TestDatabase.migratedDatabase(prefix: "rivers_trim")
        let store = Store(client: client, logger: testLogger)
        let appId = UUIDText.random()
        // Written in time order, as the log is: 5 of the app's and 2 of the instance's past 30 days, then 3 within.
        try await client.query(
            """
            INSERT INTO audit_log (app_id, at, actor, actor_kind, kind, resource_id, action)
            SELECT CASE WHEN n IN (3, 4) THEN NULL ELSE \(appId)::uuid END,
                   now() - make_interval(days => CASE WHEN n <= 7 THEN 40 - n ELSE 29 - n END), 'token t', 'token', 'screen', 'x', 'update'
            FROM generate_series(1, 10) AS n ORDER BY n
            """, logger: testLogger)
        await #expect(throws: (any Error).self) {
            try await client.query("DELETE FROM audit_log WHERE app_id = \(appId)::uuid", logger: testLogger)
        }
        let trimmer = AuditLogTrimmer(store: store, days: 30, logger: testLogger, batch: 3)
        #expect(try await trimmer.trim() == 7)
        #expect(try await store.auditEntries(appId: appId, filter: AuditFilter(), limit: 10, offset: 0).total == 3)
        #expect(try await store.auditEntries(appId: nil, filter: AuditFilter(), limit: 10, offset: 0).total == 0)
        #expect(try await trimmer.trim() == 0, "nothing more past 30 days")
        let kept = try await client.query("SELECT count(*)::int FROM audit_log WHERE at < now() - interval '30 days'", logger: testLogger)
        for try await n in kept.decode(Int.self) { #expect(n == 0) }
    }

    /// Migration 0018: a filter that matches rarely reads its few entries by index instead of
    /// walking the app's log from its newest entry. PostgreSQL's statistics say which index a
    /// query used (flushed once the reading connection is idle, hence the wait).
    @Test("the audit log's actor, kind and id filters read by index")
    func auditFiltersReadByIndex() async throws {
        try await withAPI { api in
            let client = try await TestDatabase.client()
            try await client.query(
                """
                INSERT INTO audit_log (app_id, actor, actor_kind, kind, resource_id, action)
                SELECT \(api.app.id)::uuid, CASE WHEN n = 1 THEN 'token rare' ELSE 'token bulk' END, 'token',
                       CASE WHEN n = 2 THEN 'webhook' ELSE 'screen' END, CASE WHEN n = 2 THEN 'hook-1' ELSE 'x' END, 'update'
                FROM generate_series(1, 50000) AS n
                """, logger: testLogger)
            try await client.query("ANALYZE audit_log", logger: testLogger)
            func scans(_ index: String) async throws -> Int {
                var n = 0
                for try await count in try await client.query(
                    "SELECT idx_scan::int FROM pg_stat_user_indexes WHERE indexrelname = \(index)", logger: testLogger
                ).decode(Int.self) { n = count }
                return n
            }
            for (filter, index) in [
                (AuditFilter(actor: "token rare"), "audit_log_app_actor"), (AuditFilter(kind: "webhook", resourceId: "hook-1"), "audit_log_app_kind"),
            ] {
                let before = try await scans(index)
                let found = try await api.store.auditEntries(appId: api.app.id, filter: filter, limit: 10, offset: 0)
                #expect(found.total == 1 && found.entries.count == 1)
                let after = try await statisticsAfter(before) { try await scans(index) }
                #expect(after > before, "\(index) was not used")
            }
        }
    }

    /// Migration 0021: making a link drops the links done with a month ago by index, not by
    /// reading every link of every app. PostgreSQL's statistics say which index a query used; a
    /// database of its own, so that only this test's queries count.
    @Test("making a link drops old links by index")
    func oldLinksAreDroppedByIndex() async throws {
        let (client, _) = try await TestDatabase.migratedDatabase(prefix: "rivers_links")
        let store = Store(client: client, logger: testLogger)
        let app = try await AppService(storage: store).create(slug: "links", name: "Links")
        try await client.query(
            """
            INSERT INTO links (secret_hash, id, kind, email, created_by, expires_at)
            SELECT decode(md5('bulk' || n), 'hex'), gen_random_uuid(), 'set-password', 'bulk-' || n || '@example.com', 'test', now() + interval '1 day'
            FROM generate_series(1, 20000) AS n
            """, logger: testLogger)
        try await client.query("ANALYZE links", logger: testLogger)
        func scans() async throws -> Int {
            var n = 0
            for try await count in try await client.query(
                "SELECT idx_scan::int FROM pg_stat_user_indexes WHERE indexrelname = 'links_done'", logger: testLogger
            ).decode(Int.self) { n = count }
            return n
        }
        let before = try await scans()
        _ = try await TeamService(storage: store).invite(appId: app.id, email: "new@example.com", role: .viewer, createdBy: "test", grantedBy: .operator)
        let after = try await statisticsAfter(before) { try await scans() }
        #expect(after > before, "links_done was not used")
    }

    @Test("a person reaches an app by its slug or its id with their role; a stranger gets 404 either way; an instance admin is admin")
    func peopleReachAppsBySlugOrId() async throws {
        try await withAPI { api in
            let member = try await newPerson(api), stranger = try await newPerson(api), admin = try await newPerson(api, admin: true)
            try await TeamService(storage: api.store).setRole(appId: api.app.id, userId: member.userId, role: .editor)
            for key in [api.app.slug, api.app.id, api.app.id.uppercased()] {
                let path = "/api/v1/apps/\(key)/families"
                #expect(try await api.request(.get, path, headers: member.headers, authorized: false).status == .ok, "\(key)")
                #expect(try await api.request(.post, path, json: ["id": "X"], headers: member.headers, authorized: false).status == .unprocessableContent,
                        "an editor may write (the body is what is refused)")
                #expect(try await api.request(.get, path, headers: stranger.headers, authorized: false).status == .notFound, "\(key)")
                #expect(try await api.request(.get, "/api/v1/apps/\(key)/tokens", headers: admin.headers, authorized: false).status == .ok, "\(key)")
            }
            #expect(try await api.request(.get, "/api/v1/apps/no-such-app/families", headers: admin.headers, authorized: false).status == .notFound)
            #expect(try await api.request(.get, "/api/v1/apps/\(UUIDText.random())/families", headers: member.headers, authorized: false).status == .notFound)
        }
    }

    func sessionHeaders(_ api: TestAPI, _ userId: String) async throws -> HTTPFields {
        let (secret, session) = try await api.store.createSession(userId: userId, userAgent: "matrix", address: "")
        return [.cookie: "\(SessionCookies.name)=\(secret)", SessionCookies.csrfHeader: session.csrfToken]
    }

    /// The policy, route by route: every route the server has (read from the live route table,
    /// so a new one is covered, and one without a need cannot be registered) is called by each
    /// kind of caller, and answers 401, 403 or 404 exactly when that caller may not use it.
    @Test func everyRouteEnforcesItsNeedForEveryRole() async throws {
        let log = RouteLog()
        try await withAPI(routeLog: log) { api in
            var tokens: [Role: String] = [:]
            for role in Role.allCases {
                tokens[role] = try await TeamService(storage: api.store).createToken(appId: api.app.id, name: "matrix \(role)", role: role, createdBy: "test").token
            }
            let stranger = try await newPerson(api)
            let admin = try await newPerson(api, admin: true)
            var members: [Role: String] = [:]
            for role in Role.allCases {
                let p = try await newPerson(api)
                try await TeamService(storage: api.store).setRole(appId: api.app.id, userId: p.userId, role: role)
                members[role] = p.userId
            }
            enum Caller { case anonymous, token(Role), member(Role), stranger, instanceAdmin }
            var callers: [Caller] = [.anonymous, .stranger, .instanceAdmin]
            for role in Role.allCases { callers += [.token(role), .member(role)] }

            #expect(log.needs.count == log.routes.count)
            #expect(log.needs.count > 60)
            for (route, need) in log.needs {
                let parts = route.split(separator: " ", maxSplits: 1)
                let method = HTTPRequest.Method(rawValue: String(parts[0]))!
                var path = "/" + parts[1].drop(while: { $0 == "/" })
                path = path.replacingOccurrences(of: "{app}", with: api.app.slug)
                for name in ["{id}", "{user}", "{number}", "{secret}", "{version}", "{archived}"] {
                    path = path.replacingOccurrences(of: name, with: name == "{number}" ? "99" : name == "{version}" ? "v99" : UUIDText.random())
                }
                path = path.replacingOccurrences(of: "{slug}", with: api.app.slug)
                for (name, value) in [("{name}", "staging"), ("{channel}", "staging"), ("{app_version}", "5.0"), ("{delivery}", "msg_none")] {
                    path = path.replacingOccurrences(of: name, with: value)
                }
                let appScoped = path.hasPrefix("/api/v1/apps/\(api.app.slug)")
                for caller in callers {
                    var headers: HTTPFields = [:]
                    var token: String?
                    var callerRole: Role?
                    var isPerson = false, isAdmin = false, isMember = false
                    switch caller {
                    case .anonymous: break
                    case .token(let role):
                        token = tokens[role]
                        callerRole = role
                    case .member(let role):
                        headers = try await sessionHeaders(api, members[role]!)
                        callerRole = role
                        isPerson = true
                        isMember = true
                    case .stranger:
                        headers = try await sessionHeaders(api, stranger.userId)
                        isPerson = true
                    case .instanceAdmin:
                        headers = try await sessionHeaders(api, admin.userId)
                        isPerson = true
                        isAdmin = true
                    }
                    let body: JSONValue? = [.post, .put, .patch].contains(method) ? [:] : nil
                    // The live stream never ends: a Last-Event-ID that is no id makes an allowed
                    // caller's request a 400 (checked after the need), so this client gets an end.
                    if route.hasSuffix("/events") { headers[AppEventsController.lastEventID] = "not-an-id" }
                    let response = try await api.request(method, path, json: body, headers: headers, token: token, authorized: token != nil)
                    let status = response.status.code
                    // Deleting archives the app: it comes back for the next caller.
                    if route == "DELETE api/v1/apps/{app}", status == 204 { _ = try await AppService(storage: api.store).restore(api.app.id) }
                    let expected: String
                    let authenticated = token != nil || isPerson
                    switch need {
                    case .anyone: expected = "allowed"
                    case .authenticated: expected = authenticated ? "allowed" : "401"
                    case .person: expected = !authenticated ? "401" : isPerson ? "allowed" : "403"
                    case .token: expected = !authenticated ? "401" : isPerson ? "403" : "allowed"
                    case .instanceAdmin: expected = !authenticated ? "401" : isAdmin ? "allowed" : "403"
                    case .role(let needed):
                        if !authenticated { expected = "401" }
                        else if isAdmin { expected = "allowed" }
                        else if appScoped && isPerson && !isMember { expected = "404" }
                        else { expected = (callerRole.map { $0 >= needed } ?? false) ? "allowed" : "403" }
                    }
                    let ok: Bool
                    switch expected {
                    // (The published index is not loaded in tests: /health/ready says 503.)
                    case "allowed": ok = status != 401 && status != 403 && (status < 500 || path == "/health/ready") && !(appScoped && status == 404 && response["type"]?.stringValue == "/problems/not-found" && response["detail"]?.stringValue?.hasPrefix("no app") == true)
                    case "401": ok = status == 401
                    case "403": ok = status == 403
                    default: ok = status == 404
                    }
                    #expect(ok, "\(route) by \(caller) (needs \(need)): expected \(expected), got \(status) \(response.text.prefix(200))")
                }
            }
        }
    }
}
