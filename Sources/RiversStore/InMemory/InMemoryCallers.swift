import Foundation
import NIOConcurrencyHelpers
import RiversCore

/// Apps and their API tokens in memory: a `CallerRepository` without PostgreSQL, for the fast
/// tier's router tests (the API's authentication and app access run on it as on `Store`). It
/// keeps tokens; sessions are `people`'s (none without them); no person is a member of an app
/// here (app routes are reached with tokens).
public final class InMemoryCallers: CallerRepository {
    private let tokens = NIOLockedValueBox<[String: (app: App, token: TokenInfo)]>([:])
    let people: InMemoryAccounts?

    public init(people: InMemoryAccounts? = nil) { self.people = people }

    /// A new app (its id a fresh UUID).
    public func addApp(slug: String, name: String = "App") -> App {
        App(id: UUIDText.random(), slug: slug, name: name, createdAt: Date())
    }

    /// A new token of `app` with `role` (valid until `expiresAt`, when given); the token's secret is returned.
    public func addToken(app: App, role: Role, name: String = "test", expiresAt: Date? = nil) -> String {
        let secret = "rvt_" + UUIDText.random().replacingOccurrences(of: "-", with: "")
        let info = TokenInfo(
            id: UUIDText.random(), name: name, role: role, createdBy: "memory", createdAt: Date(), expiresAt: expiresAt, lastUsedAt: nil)
        tokens.withLockedValue { $0[secret] = (app, info) }
        return secret
    }

    public func tokenOwner(_ token: String) async throws -> (app: App, token: TokenInfo)? {
        tokens.withLockedValue { $0[token] }.flatMap { found in found.token.expiresAt.map { $0 > Date() } ?? true ? found : nil }
    }

    public func session(secret: String) async throws -> SignedInSession? { people?.session(secret: secret) }

    public func sessionIsAlive(id: String) async throws -> Bool { people?.sessionIsAlive(id: id) ?? false }

    public func appAndRole(_ idOrSlug: String, userId: String) async throws -> (app: App, role: Role?)? { nil }
}
