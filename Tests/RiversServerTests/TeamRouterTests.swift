import Foundation
import Hummingbird
import HummingbirdTesting
import RiversCore
import RiversServices
import RiversStore
import Testing

@testable import RiversServer

/// The people and team routes (apps, archived apps, accounts, an app's settings, members,
/// invitations, tokens and audit log) on the router alone (Hummingbird's `.router` mode) over
/// in-memory people and apps (`InMemoryTeam`: the API group's own authentication finds sessions,
/// tokens and roles there): no PostgreSQL, so in the fast tier. The use cases are `TeamService`
/// and `AppService`; what is tested is HTTP's part: statuses, problem+json with pointers,
/// Location, paging, who may do what, that a grant taken back stops at once, and that an
/// `Idempotency-Key` never repeats a write whose answer held a secret.
@Suite("People and team routes on in-memory people and apps")
struct TeamRouterTests {
    struct Fixture {
        let application: Application<RouterResponder<RiversContext>>
        let people: InMemoryAccounts
        let app: App
        /// The instance admin's session (cookie and CSRF token).
        let root: HTTPFields
        let ann: User
        /// Ann's session: the app's only admin member.
        let annSession: HTTPFields
        let bob: User
        let bobSession: HTTPFields
    }

    static func setUp() async throws -> Fixture {
        let people = InMemoryAccounts()
        let apps = InMemoryApps()
        let directory = InMemoryTeam(people: people, apps: apps)
        let (router, routes, log) = apiRouterAlone(callers: directory, idempotency: InMemoryIdempotency())
        TeamController(
            people: directory, team: TeamService(storage: people), apps: AppService(storage: apps), helpers: APIHelpers(bodyLimit: 64 * 1024),
            baseURL: "http://127.0.0.1"
        ).register(on: routes)
        #expect(log.routes.count == 20, "\(log.routes)")
        let app = try await AppService(storage: apps).create(slug: "team", name: "Team")
        _ = try await AppService(storage: apps).create(slug: "elsewhere", name: "Elsewhere")
        let root = people.addPerson(email: "root@example.com", name: "Root", isAdmin: true)
        let ann = people.addPerson(email: "ann@example.com", name: "Ann")
        let bob = people.addPerson(email: "bob@example.com", name: "Bob")
        people.addMember(appId: app.id, userId: ann.id, role: .admin)
        func session(_ user: User) async throws -> HTTPFields {
            let (secret, session) = try await people.createSession(userId: user.id, userAgent: "test", address: "127.0.0.1")
            return [.cookie: "\(SessionCookies.name)=\(secret)", SessionCookies.csrfHeader: session.csrfToken]
        }
        return Fixture(
            application: Application(router: router, logger: testLogger), people: people, app: app, root: try await session(root), ann: ann,
            annSession: try await session(ann), bob: bob, bobSession: try await session(bob))
    }

    static func call(_ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ path: String, headers: HTTPFields, json: JSONValue? = nil) async throws -> RouterAnswer {
        try await callAPI(client, method, path, headers: headers, json: json)
    }

    @Test func anInstanceAdminMakesAppsAndAccounts() async throws {
        let f = try await Self.setUp()
        try await f.application.test(.router) { client in
            let made = try await Self.call(client, .post, "apps", headers: f.root, json: ["slug": "news", "name": "News"])
            #expect(made.status == .created && made.headers[.location] == "/api/v1/apps/news" && made.json["role"] == "admin", "\(made.json)")
            let bad = try await Self.call(client, .post, "apps", headers: f.root, json: ["slug": "Not A Slug", "name": "", "colour": 1])
            #expect(bad.status == .unprocessableContent && bad.isProblem && Set(bad.pointers) == ["/slug", "/name", "/colour"], "\(bad.json)")
            let taken = try await Self.call(client, .post, "apps", headers: f.root, json: ["slug": "news"])
            #expect(taken.status == .conflict && taken.isProblem)

            // Every live app, in slug order, a page at a time; a search by slug or name.
            let page = try await Self.call(client, .get, "apps?limit=2", headers: f.root)
            #expect(page.items.compactMap { $0["slug"]?.stringValue } == ["elsewhere", "news"] && page.json["total"] == 3 && page.json["next_offset"] == 2, "\(page.json)")
            let found = try await Self.call(client, .get, "apps?q=NEW", headers: f.root)
            #expect(found.items.compactMap { $0["slug"]?.stringValue } == ["news"])

            // An account, with the link to set its password (no mail: the link is in the answer).
            let account = try await Self.call(client, .post, "users", headers: f.root, json: ["email": "Carol@Example.com", "name": "Carol"])
            #expect(account.status == .created && account.json["user"]?["email"] == "carol@example.com", "\(account.json)")
            #expect(account.json["url"]?.stringValue?.hasPrefix("http://127.0.0.1/link.html#rvl_") == true && account.json["link"]?["kind"] == "set-password")
            let again = try await Self.call(client, .post, "users", headers: f.root, json: ["email": "carol@example.com"])
            #expect(again.status == .conflict && again.isProblem)
            let notAnEmail = try await Self.call(client, .post, "users", headers: f.root, json: ["email": "carol", "admin": "yes"])
            #expect(notAnEmail.status == .unprocessableContent && Set(notAnEmail.pointers) == ["/email", "/admin"], "\(notAnEmail.json)")
            let users = try await Self.call(client, .get, "users", headers: f.root)
            #expect(users.items.compactMap { $0["email"]?.stringValue } == ["ann@example.com", "bob@example.com", "carol@example.com", "root@example.com"])
            let link = try await Self.call(client, .post, "users/\(f.bob.id)/password-link", headers: f.root)
            #expect(link.status == .created && link.json["user"]?["email"] == "bob@example.com")
            #expect(try await Self.call(client, .post, "users/\(UUIDText.random())/password-link", headers: f.root).status == .notFound)
            let audit = try await Self.call(client, .get, "audit?kind=account", headers: f.root)
            #expect(audit.items.compactMap { $0["action"]?.stringValue } == ["password-link", "password-link", "create"], "\(audit.json)")
            let badDate = try await Self.call(client, .get, "audit?since=yesterday", headers: f.root)
            #expect(badDate.status == .badRequest && badDate.isProblem, "\(badDate.json)")

            // Only instance admins.
            for (method, path) in [(HTTPRequest.Method.get, "users"), (.post, "apps"), (.get, "archived-apps"), (.get, "audit")] {
                let refused = try await Self.call(client, method, path, headers: f.annSession, json: method == .post ? ["slug": "mine"] : nil)
                #expect(refused.status == .forbidden && refused.isProblem, "\(method) \(path)")
            }
            // A member sees the apps it is a member of, with its role there.
            let mine = try await Self.call(client, .get, "apps", headers: f.annSession)
            #expect(mine.items.map { $0["slug"] } == ["team"] && mine.items.first?["role"] == "admin")
            #expect(try await Self.call(client, .get, "apps", headers: f.bobSession).json["total"] == 0)
            #expect(try await Self.call(client, .get, "apps", headers: [:]).status == .unauthorized)
        }
    }

    @Test func anAppAdminManagesMembersInvitationsAndTokens() async throws {
        let f = try await Self.setUp()
        try await f.application.test(.router) { client in
            // Bob is no member: the app is not there for him.
            #expect(try await Self.call(client, .get, "apps/team/members", headers: f.bobSession).status == .notFound)
            let added = try await Self.call(client, .put, "apps/team/members/\(f.bob.id)", headers: f.annSession, json: ["role": "editor"])
            #expect(added.status == .ok && added.json["role"] == "editor", "\(added.json)")
            let badRole = try await Self.call(client, .put, "apps/team/members/\(f.bob.id)", headers: f.annSession, json: ["role": "owner"])
            #expect(badRole.status == .unprocessableContent && badRole.pointers == ["/role"])
            let members = try await Self.call(client, .get, "apps/team/members", headers: f.annSession)
            #expect(members.items.compactMap { $0["email"]?.stringValue } == ["ann@example.com", "bob@example.com"] && members.json["total"] == 2)
            // An editor is not the app's admin; the last admin cannot step down.
            #expect(try await Self.call(client, .get, "apps/team/members", headers: f.bobSession).status == .forbidden)
            let last = try await Self.call(client, .put, "apps/team/members/\(f.ann.id)", headers: f.annSession, json: ["role": "viewer"])
            #expect(last.status == .conflict && last.isProblem, "\(last.json)")

            // Invitations: made, listed, withdrawn once.
            let invited = try await Self.call(client, .post, "apps/team/invitations", headers: f.annSession, json: ["email": "dan@example.com", "role": "viewer"])
            #expect(invited.status == .created && invited.json["invitation"]?["email"] == "dan@example.com", "\(invited.json)")
            #expect(invited.json["url"]?.stringValue?.contains("#rvl_") == true)
            let pending = try await Self.call(client, .get, "apps/team/invitations", headers: f.annSession)
            let invitationId = try #require(pending.items.first?["id"]?.stringValue)
            #expect(pending.json["total"] == 1 && pending.items.first?["email"] == "dan@example.com")
            #expect(try await Self.call(client, .delete, "apps/team/invitations/\(invitationId)", headers: f.annSession).status == .noContent)
            #expect(try await Self.call(client, .delete, "apps/team/invitations/\(invitationId)", headers: f.annSession).status == .notFound)

            // A token: shown once, then it is the app's caller with its role; revoked, it stops at once.
            let made = try await Self.call(client, .post, "apps/team/tokens", headers: f.annSession, json: ["name": "ci", "role": "editor"])
            #expect(made.status == .created && made.headers[.cacheControl] == "no-store", "\(made.json)")
            let token = try #require(made.json["token"]?.stringValue), tokenId = try #require(made.json["id"]?.stringValue)
            let bearer: HTTPFields = [.authorization: "Bearer \(token)"]
            let seen = try await Self.call(client, .get, "apps", headers: bearer)
            #expect(seen.items.map { $0["slug"] } == ["team"] && seen.items.first?["role"] == "editor", "\(seen.json)")
            #expect(try await Self.call(client, .get, "apps/team/tokens", headers: bearer).status == .forbidden, "an editor token is no admin")
            let listed = try await Self.call(client, .get, "apps/team/tokens", headers: f.annSession)
            #expect(listed.items.count == 1 && listed.items.first?["token"] == nil, "a token is shown once: \(listed.json)")
            let expired = try await Self.call(client, .post, "apps/team/tokens", headers: f.annSession, json: ["name": "old", "role": "viewer", "expires_at": "2001-01-01T00:00:00Z"])
            #expect(expired.status == .unprocessableContent && expired.pointers == ["/expires_at"], "\(expired.json)")
            // An answer that held a secret shown once is not kept: its key says the write was done.
            var keyed = f.annSession
            keyed[IdempotencyMiddleware.header] = "token-key"
            let once = try await Self.call(client, .post, "apps/team/tokens", headers: keyed, json: ["name": "keyed", "role": "viewer"])
            #expect(once.status == .created && once.json["token"] != nil)
            let twice = try await Self.call(client, .post, "apps/team/tokens", headers: keyed, json: ["name": "keyed", "role": "viewer"])
            #expect(twice.status == .conflict && twice.json["type"]?.stringValue?.hasSuffix("idempotency-key-used") == true && twice.json["token"] == nil, "\(twice.json)")
            #expect(f.people.tokens(appId: f.app.id).count == 2, "the second request made no token")
            #expect(try await Self.call(client, .delete, "apps/team/tokens/\(tokenId)", headers: f.annSession).status == .noContent)
            #expect(try await Self.call(client, .get, "apps", headers: bearer).status == .unauthorized)

            // Removing Bob: the app is gone for him at once.
            #expect(try await Self.call(client, .delete, "apps/team/members/\(f.bob.id)", headers: f.annSession).status == .noContent)
            let gone = try await Self.call(client, .get, "apps/team/members", headers: f.bobSession)
            #expect(gone.status == .notFound, "\(gone.status) \(gone.json)")
            #expect(try await Self.call(client, .delete, "apps/team/members/\(f.bob.id)", headers: f.annSession).status == .notFound)
        }
    }

    @Test func whatATokenMakesExpiresWithItAtTheLatest() async throws {
        let f = try await Self.setUp()
        try await f.application.test(.router) { client in
            let made = try await Self.call(
                client, .post, "apps/team/tokens", headers: f.annSession,
                json: ["name": "contractor", "role": "admin", "expires_at": .string(Timestamp.format(Date().addingTimeInterval(3600)))])
            let limit = try #require(made.json["expires_at"]?.stringValue, "\(made.json)")
            let bearer: HTTPFields = [.authorization: "Bearer \(try #require(made.json["token"]?.stringValue))"]
            // Without an expiry of its own, a token it makes expires with it; a later one is refused at its field.
            let child = try await Self.call(client, .post, "apps/team/tokens", headers: bearer, json: ["name": "child", "role": "viewer"])
            #expect(child.status == .created && child.json["expires_at"]?.stringValue == limit, "\(child.json)")
            let later = Timestamp.format(Date().addingTimeInterval(7200))
            let refused = try await Self.call(client, .post, "apps/team/tokens", headers: bearer, json: ["name": "later", "role": "viewer", "expires_at": .string(later)])
            #expect(refused.status == .unprocessableContent && refused.pointers == ["/expires_at"], "\(refused.json)")
            let sooner = Timestamp.format(Date().addingTimeInterval(600))
            let kept = try await Self.call(client, .post, "apps/team/tokens", headers: bearer, json: ["name": "sooner", "role": "viewer", "expires_at": .string(sooner)])
            #expect(kept.status == .created && kept.json["expires_at"]?.stringValue.flatMap(Timestamp.parse).map { $0 < Date().addingTimeInterval(700) } == true, "\(kept.json)")
            // A person's tokens are not capped.
            let person = try await Self.call(client, .post, "apps/team/tokens", headers: f.annSession, json: ["name": "ci", "role": "viewer"])
            #expect(person.status == .created && person.json["expires_at"] == .null, "\(person.json)")
        }
    }

    @Test func anAppIsRenamedArchivedAndRestored() async throws {
        let f = try await Self.setUp()
        try await f.application.test(.router) { client in
            let renamed = try await Self.call(client, .patch, "apps/team", headers: f.annSession, json: ["slug": "crew", "name": "Crew"])
            #expect(renamed.status == .ok && renamed.json["slug"] == "crew" && renamed.json["name"] == "Crew", "\(renamed.json)")
            let removed = try await Self.call(client, .patch, "apps/crew", headers: f.annSession, json: ["name": .null, "slug": "UPPER"])
            #expect(removed.status == .unprocessableContent && Set(removed.pointers) == ["/name", "/slug"], "\(removed.json)")
            // Deleting archives; only an instance admin sees and restores it.
            #expect(try await Self.call(client, .delete, "apps/crew", headers: f.annSession).status == .noContent)
            #expect(try await Self.call(client, .get, "apps/crew/members", headers: f.annSession).status == .notFound)
            let archived = try await Self.call(client, .get, "archived-apps", headers: f.root)
            #expect(archived.items.map { $0["slug"] } == ["crew"] && archived.json["total"] == 1, "\(archived.json)")
            let restored = try await Self.call(client, .post, "archived-apps/crew/restore", headers: f.root)
            #expect(restored.status == .ok && restored.json["slug"] == "crew")
            #expect(try await Self.call(client, .post, "archived-apps/crew/restore", headers: f.root).status == .notFound)
            #expect(try await Self.call(client, .get, "apps/crew/members", headers: f.annSession).status == .ok)

            // Archived apps are listed newest archive first (as the SQL repository lists them), not by slug.
            for slug in ["zeta", "alpha"] {
                #expect(try await Self.call(client, .post, "apps", headers: f.root, json: ["slug": .string(slug)]).status == .created)
            }
            for slug in ["alpha", "zeta", "crew"] {
                #expect(try await Self.call(client, .delete, "apps/\(slug)", headers: f.root).status == .noContent)
                try await Task.sleep(for: .milliseconds(2))
            }
            let newestFirst = try await Self.call(client, .get, "archived-apps", headers: f.root)
            #expect(newestFirst.items.map { $0["slug"] } == ["crew", "zeta", "alpha"], "\(newestFirst.json)")
        }
    }
}
