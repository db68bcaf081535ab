import Foundation
import RiversCore

/// People and apps together, as the people and team routes see them: a `TeamRepository` and a
/// `CallerRepository` over `InMemoryAccounts` (accounts, sessions, memberships, invitations,
/// tokens, the audit log of no app) and `InMemoryApps` (apps, archived or not). A token made by
/// `TeamService` on `people` is a token of its app here, and a member's role is the one
/// `people` keeps, so the fast tier's router tests reach the app routes as a signed-in member
/// would. The audit log of an app is empty here (PostgreSQL's triggers write it).
public final class InMemoryTeam: TeamRepository, CallerRepository {
    public let people: InMemoryAccounts
    public let apps: InMemoryApps

    public init(people: InMemoryAccounts, apps: InMemoryApps) {
        self.people = people
        self.apps = apps
    }

    /// Apps by id, with whether each is archived.
    private var allApps: [String: (app: App, archived: Bool)] { apps.state.withLockedValue { $0.apps } }

    private func page<T>(_ items: [T], limit: Int, offset: Int) -> [T] {
        Array(items.dropFirst(max(0, offset)).prefix(max(0, limit)))
    }

    // MARK: CallerRepository

    public func tokenOwner(_ token: String) async throws -> (app: App, token: TokenInfo)? {
        guard let found = people.state.withLockedValue({ $0.tokens.first { $0.secret == token } }),
            found.info.expiresAt.map({ $0 > Date() }) ?? true,
            let entry = allApps[found.appId], !entry.archived
        else { return nil }
        return (entry.app, found.info)
    }

    public func session(secret: String) async throws -> SignedInSession? { people.session(secret: secret) }

    public func sessionIsAlive(id: String) async throws -> Bool { people.sessionIsAlive(id: id) }

    public func appAndRole(_ idOrSlug: String, userId: String) async throws -> (app: App, role: Role?)? {
        let id = UUIDText.normalize(idOrSlug)
        guard let entry = allApps.values.first(where: { entry in !entry.archived && (id.map { entry.app.id == $0 } ?? (entry.app.slug == idOrSlug)) })
        else { return nil }
        return (entry.app, people.role(appId: entry.app.id, userId: userId))
    }

    // MARK: TeamRepository

    public func apps(visibleTo userId: String?, search: String?, limit: Int, offset: Int) async throws -> (apps: [(app: App, role: Role?)], total: Int) {
        let members = people.state.withLockedValue { $0.members }
        let visible = allApps.values.filter { entry in
            guard !entry.archived else { return false }
            if let userId, members[entry.app.id]?[userId] == nil { return false }
            guard let search else { return true }
            return entry.app.slug.localizedCaseInsensitiveContains(search) || entry.app.name.localizedCaseInsensitiveContains(search)
        }
        .map(\.app).sorted { $0.slug < $1.slug }
        let listed = page(visible, limit: limit, offset: offset).map { app in (app: app, role: userId.flatMap { members[app.id]?[$0] }) }
        return (listed, visible.count)
    }

    public func archivedApps(limit: Int, offset: Int) async throws -> (apps: [App], total: Int) {
        // Newest archive first, then by id, as the SQL repository lists them.
        let (all, archivedAt) = apps.state.withLockedValue { ($0.apps, $0.archivedAt) }
        let archived = all.values.filter(\.archived).map(\.app).sorted {
            let (a, b) = (archivedAt[$0.id] ?? .distantPast, archivedAt[$1.id] ?? .distantPast)
            return a != b ? a > b : $0.id < $1.id
        }
        return (page(archived, limit: limit, offset: offset), archived.count)
    }

    public func listUsers(limit: Int, offset: Int) async throws -> (users: [User], total: Int) {
        let users = people.state.withLockedValue { $0.people.values.map(\.user) }.sorted { $0.email < $1.email }
        return (page(users, limit: limit, offset: offset), users.count)
    }

    public func user(id: String) async throws -> User? {
        guard let id = UUIDText.normalize(id) else { return nil }
        return people.state.withLockedValue { $0.people.values.first { $0.user.id == id }?.user }
    }

    public func members(appId: String, limit: Int, offset: Int) async throws -> (members: [(user: User, role: Role)], total: Int) {
        let all = people.state.withLockedValue { state in
            (state.members[appId] ?? [:]).compactMap { userId, role in
                state.people.values.first { $0.user.id == userId }.map { (user: $0.user, role: role) }
            }
        }
        .sorted { $0.user.email < $1.user.email }
        return (page(all, limit: limit, offset: offset), all.count)
    }

    public func pendingInvitations(appId: String, limit: Int, offset: Int) async throws -> (links: [OneTimeLink], total: Int) {
        let app = allApps[appId]?.app
        let now = Date()
        let pending = people.pendingInvitations(appId: appId).filter { $0.expiresAt > now }
            .sorted { $0.createdAt != $1.createdAt ? $0.createdAt > $1.createdAt : $0.id < $1.id }
            .map { link in
                var link = link
                link.app = app
                return link
            }
        return (page(pending, limit: limit, offset: offset), pending.count)
    }

    public func tokens(appId: String, limit: Int, offset: Int) async throws -> (tokens: [TokenInfo], total: Int) {
        let all = people.tokens(appId: appId)
        return (page(all, limit: limit, offset: offset), all.count)
    }

    public func auditEntries(appId: String?, filter: AuditFilter, limit: Int, offset: Int) async throws -> (entries: [AuditEntry], total: Int, capped: Bool) {
        guard appId == nil else { return ([], 0, false) }
        let matching = people.state.withLockedValue { $0.audit }.reversed().filter { entry in
            (filter.actor.map { entry.actor == $0 } ?? true) && (filter.kind.map { entry.kind == $0 } ?? true)
                && (filter.resourceId.map { entry.resourceId == $0 } ?? true) && (filter.since.map { entry.at >= $0 } ?? true)
                && (filter.until.map { entry.at < $0 } ?? true)
        }
        let window = Array(matching.prefix(Store.auditWindow))
        return (page(window, limit: limit, offset: offset), window.count, matching.count > Store.auditWindow)
    }

    public func createAccount(
        email: String, name: String, isAdmin: Bool, passwordLinkBy createdBy: String?
    ) async throws -> (user: User, link: (secret: String, link: OneTimeLink)?) {
        let email = try Store.normalizedEmail(email)
        return try people.transaction { state in
            if state.people[email] != nil { throw StoreError.conflict("an account with this email exists already", usedBy: []) }
            let user = User(id: UUIDText.random(), email: email, name: name, isAdmin: isAdmin, hasPassword: false, createdAt: Date())
            state.people[email] = InMemoryAccounts.Person(user: user)
            state.record("account", "create", user.id, summary: email + (isAdmin ? " (instance admin)" : ""))
            guard let createdBy else { return (user, nil) }
            return (user, Self.insertPasswordLink(email: email, createdBy: createdBy, in: &state))
        }
    }

    public func createPasswordLink(email: String, createdBy: String) async throws -> (secret: String, link: OneTimeLink) {
        let email = try Store.normalizedEmail(email)
        return people.transaction { Self.insertPasswordLink(email: email, createdBy: createdBy, in: &$0) }
    }

    static func insertPasswordLink(email: String, createdBy: String, in state: inout InMemoryAccounts.State) -> (secret: String, link: OneTimeLink) {
        let secret = "rvl_" + UUIDText.random().replacingOccurrences(of: "-", with: "")
        let link = OneTimeLink(
            id: UUIDText.random(), kind: .setPassword, email: email, app: nil, role: nil, createdBy: createdBy, createdAt: Date(),
            expiresAt: Date().addingTimeInterval(Store.linkLifetime))
        state.links[secret] = InMemoryAccounts.Link(link: link, grantedBy: .operator)
        state.record("account", "password-link", link.id, summary: email)
        return (secret, link)
    }
}
