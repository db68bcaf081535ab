import Foundation
import Hummingbird
import HummingbirdTesting
import RiversCore
import RiversServices
import RiversStore
import Testing

@testable import RiversServer

/// Signing in and out, one's sessions and password, and one-time links on the router alone
/// (Hummingbird's `.router` mode) over in-memory people (`InMemoryAccounts`, whose sessions the
/// API group's own authentication finds through `InMemoryCallers`): no PostgreSQL, so in the
/// fast tier. Passwords are real bcrypt (`Passwords`): a handful of checks, a second or two.
@Suite("Session and link routes on in-memory people")
struct SessionRouterTests {
    struct Fixture {
        let application: Application<RouterResponder<RiversContext>>
        let people: InMemoryAccounts
        let app: App
    }

    static func setUp() async throws -> Fixture {
        let people = InMemoryAccounts()
        let callers = InMemoryCallers(people: people)
        let cookies = SessionCookies(publicBaseURL: nil)
        let (router, routes, log) = apiRouterAlone(callers: callers, cookies: cookies)
        SessionController(
            accounts: AccountService(store: people, passwords: Passwords()), sessions: people, helpers: APIHelpers(bodyLimit: 64 * 1024),
            baseURL: "http://127.0.0.1", cookies: cookies
        ).register(on: routes)
        #expect(log.routes.count == 12, "\(log.routes)")
        let hash = try await Passwords().hash("the right password", from: "")
        people.addPerson(email: "ann@example.com", name: "Ann", passwordHash: hash)
        return Fixture(application: Application(router: router, logger: testLogger), people: people, app: callers.addApp(slug: "team"))
    }

    static func call(_ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ path: String, headers: HTTPFields = [:], json: JSONValue? = nil) async throws -> RouterAnswer {
        try await callAPI(client, method, path, headers: headers, json: json)
    }

    @Test func signingInUsingTheSessionAndSigningOut() async throws {
        let f = try await Self.setUp()
        try await f.application.test(.router) { client in
            let bad = try await Self.call(client, .post, "session", json: ["email": "ann@example.com", "password": "the wrong password"])
            #expect(bad.status == .unauthorized && bad.isProblem && bad.json["field"] == "/password", "\(bad.json)")
            let invalid = try await Self.call(client, .post, "session", json: ["email": "", "extra": 1])
            #expect(invalid.status == .unprocessableContent && Set(invalid.pointers) == ["/email", "/password", "/extra"], "\(invalid.json)")

            let signedIn = try await Self.call(client, .post, "session", json: ["email": "ANN@example.com", "password": "the right password"])
            #expect(signedIn.status == .created && signedIn.headers[.cacheControl] == "no-store", "\(signedIn.json)")
            let cookie = try #require(signedIn.cookie)
            let csrf = try #require(signedIn.json["csrf_token"]?.stringValue)
            #expect(signedIn.json["user"]?["email"] == "ann@example.com")

            let me = try await Self.call(client, .get, "session", headers: [.cookie: cookie])
            #expect(me.status == .ok && me.json["user"]?["name"] == "Ann")
            let list = try await Self.call(client, .get, "sessions", headers: [.cookie: cookie])
            #expect(list.json["items"]?.arrayValue?.count == 1 && list.json["items"]?.arrayValue?.first?["current"] == true, "\(list.json)")
            // A write with the cookie needs the session's CSRF token.
            #expect(try await Self.call(client, .delete, "session", headers: [.cookie: cookie]).status == .forbidden)
            let out = try await Self.call(client, .delete, "session", headers: [.cookie: cookie, SessionCookies.csrfHeader: csrf])
            #expect(out.status == .noContent && out.headers[.setCookie]?.contains("Max-Age=0") == true)
            #expect(try await Self.call(client, .get, "session", headers: [.cookie: cookie]).status == .unauthorized)
        }
    }

    @Test func aNewPasswordAndAPasswordLink() async throws {
        let f = try await Self.setUp()
        try await f.application.test(.router) { client in
            let signedIn = try await Self.call(client, .post, "session", json: ["email": "ann@example.com", "password": "the right password"])
            let headers: HTTPFields = [.cookie: try #require(signedIn.cookie), SessionCookies.csrfHeader: try #require(signedIn.json["csrf_token"]?.stringValue)]
            let short = try await Self.call(client, .post, "password", headers: headers, json: ["current_password": "the right password", "new_password": "short"])
            #expect(short.status == .unprocessableContent && short.pointers == ["/new_password"], "\(short.json)")
            let wrong = try await Self.call(client, .post, "password", headers: headers, json: ["current_password": "not it at all", "new_password": "a brand new password"])
            #expect(wrong.status == .forbidden && wrong.json["field"] == "/current_password", "\(wrong.json)")
            let changed = try await Self.call(client, .post, "password", headers: headers, json: ["current_password": "the right password", "new_password": "a brand new password"])
            #expect(changed.status == .ok && changed.cookie != nil && changed.cookie != signedIn.cookie)
            #expect(try await Self.call(client, .get, "session", headers: headers).status == .unauthorized, "the old session ended")

            // A link: what it is, then used once (its secret in X-Link-Secret).
            let secret = f.people.addLink(kind: .invitation, email: "new@example.com", app: f.app, role: .editor)
            let secretHeader: HTTPFields = [.linkSecret: secret]
            let info = try await Self.call(client, .get, "link", headers: secretHeader)
            #expect(info.status == .ok && info.json["has_password"] == false && info.json["kind"] == "invitation", "\(info.json)")
            let used = try await Self.call(client, .post, "link", headers: secretHeader, json: ["password": "my own password", "name": "New"])
            #expect(used.status == .created && used.json["user"]?["name"] == "New" && used.cookie != nil, "\(used.json)")
            let again = try await Self.call(client, .post, "link", headers: secretHeader, json: ["password": "my own password"])
            #expect(again.status == .gone && again.isProblem)
            #expect(try await Self.call(client, .get, "link", headers: [.linkSecret: "rvl_nothing"]).status == .notFound)
            #expect(try await Self.call(client, .get, "link").status == .badRequest)
        }
    }
}
