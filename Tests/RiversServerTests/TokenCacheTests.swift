import Foundation
import PostgresNIO
import RiversCore
import RiversServices
@testable import RiversStore
import Testing

@Suite("API tokens looked up once a second")
struct TokenCacheTests {
    func entry(expiresAt: Date? = nil) -> (app: App, token: TokenInfo) {
        (App(id: UUIDText.random(), slug: "a", name: "A", createdAt: Date()),
         TokenInfo(id: UUIDText.random(), name: "ci", role: .editor, createdBy: "test", createdAt: Date(), expiresAt: expiresAt, lastUsedAt: nil))
    }

    @Test("kept for its lifetime; not past it, nor past the token's own expiry")
    func lifetimes() async throws {
        let cache = TokenCache(lifetime: .seconds(60))
        let hash = Data([1]), expired = Data([2])
        cache.keep(entry(), hash: hash, ifStill: cache.generation)
        cache.keep(entry(expiresAt: Date(timeIntervalSinceNow: -1)), hash: expired, ifStill: cache.generation)
        #expect(cache.lookup(hash)?.token.role == .editor)
        #expect(cache.lookup(expired) == nil, "a token that expired is asked of the database again")
        #expect(cache.lookup(Data([3])) == nil)

        let short = TokenCache(lifetime: .milliseconds(50))
        short.keep(entry(), hash: hash, ifStill: short.generation)
        try await Task.sleep(for: .milliseconds(120))
        #expect(short.lookup(hash) == nil)
    }

    @Test("a lookup that raced with a revocation does not put its answer back")
    func raceWithAClear() {
        let cache = TokenCache(lifetime: .seconds(60))
        let before = cache.generation
        cache.clear()
        cache.keep(entry(), hash: Data([1]), ifStill: before)
        #expect(cache.lookup(Data([1])) == nil)
        cache.keep(entry(), hash: Data([1]), ifStill: cache.generation)
        #expect(cache.lookup(Data([1])) != nil)
        cache.clear()
        #expect(cache.lookup(Data([1])) == nil)
    }

    @Test("revoking a token, archiving or renaming its app takes effect at once in this process; a change made elsewhere within a second")
    func revocations() async throws {
        let (store, app, token) = try await storeWithApp(slugPrefix: "tc")
        #expect(try await store.tokenOwner(token)?.app.slug == app.slug)
        let renamed = try await AppService(storage: store).update(appId: app.id, name: "Renamed", slug: nil)
        #expect(try await store.tokenOwner(token)?.app.name == renamed.name)

        try await AppService(storage: store).archive(appId: app.id)
        #expect(try await store.tokenOwner(token) == nil)
        _ = try await AppService(storage: store).restore(app.id)
        let second = try await TeamService(storage: store).createToken(appId: app.id)
        #expect(try await store.tokenOwner(second.token) != nil)
        try await TeamService(storage: store).revokeToken(appId: app.id, id: second.info.id)
        #expect(try await store.tokenOwner(second.token) == nil)

        // Another process deletes the token: this one refuses it once its entry ages out.
        #expect(try await store.tokenOwner(token) != nil)
        try await store.client.query("DELETE FROM api_tokens WHERE app_id = \(app.id)::uuid", logger: testLogger)
        try await Task.sleep(for: store.tokens.lifetime + .milliseconds(100))
        #expect(try await store.tokenOwner(token) == nil)
    }

    @Test("a team write that changes no grant (an invitation, a new token) keeps what the cache holds")
    func onlyGrantChangesClear() async throws {
        let (store, app, token) = try await storeWithApp(slugPrefix: "tk")
        let team = TeamService(storage: store)
        #expect(try await store.tokenOwner(token) != nil)
        let kept = store.tokens.generation
        _ = try await team.invite(appId: app.id, email: "kept-\(UUIDText.random().prefix(8))@example.com", role: .editor, createdBy: "test", grantedBy: .operator)
        let second = try await team.createToken(appId: app.id)
        #expect(store.tokens.generation == kept, "an invitation and a new token leave every kept token as true as it was")
        try await team.revokeToken(appId: app.id, id: second.info.id)
        #expect(store.tokens.generation != kept, "a revocation clears the cache")
        let afterRevocation = store.tokens.generation
        _ = try await AppService(storage: store).update(appId: app.id, name: "Renamed", slug: nil)
        #expect(store.tokens.generation != afterRevocation, "a rename clears the cache")
    }

    @Test("a member's token stops at once when the member is demoted or removed")
    func demotionsAndRemovals() async throws {
        let (store, app, _) = try await storeWithApp(slugPrefix: "td")
        let team = TeamService(storage: store)
        // The app keeps an admin member whatever becomes of Bob.
        let ann = try await store.createUser(email: "ann-\(UUIDText.random().prefix(8))@example.com", name: "Ann", isAdmin: false)
        try await team.setRole(appId: app.id, userId: ann.id, role: .admin)
        for removal in [false, true] {
            let bob = try await store.createUser(email: "bob-\(UUIDText.random().prefix(8))@example.com", name: "Bob", isAdmin: false)
            try await team.setRole(appId: app.id, userId: bob.id, role: .admin)
            let made = try await team.createToken(appId: app.id, name: "bob's", role: .admin, createdBy: "Bob", grantedBy: .person(userId: bob.id))
            #expect(try await store.tokenOwner(made.token) != nil)
            #expect(try await store.tokenOwner(made.token) != nil, "kept")
            if removal {
                try await team.removeMember(appId: app.id, userId: bob.id)
            } else {
                try await team.setRole(appId: app.id, userId: bob.id, role: .viewer)
            }
            #expect(try await store.tokenOwner(made.token) == nil, removal ? "removed" : "demoted")
        }
    }
}
