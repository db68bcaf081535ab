import Foundation
import NIOConcurrencyHelpers
import RiversCore

/// Apps in memory: an `AppStorage` without PostgreSQL, for the fast tier's tests of `AppService`.
/// It keeps what the apps' use cases read and write (each app and whether it is archived, former
/// slugs and their redirects, slugs that published documents, pending schedules as a count) and
/// what they notify. A transaction changes a copy, kept only when its work returns; one that
/// started before another committed runs again.
public final class InMemoryApps: AppStorage {
    struct State {
        var apps: [String: (app: App, archived: Bool)] = [:]
        /// When each archived app was archived (archived apps are listed newest first).
        var archivedAt: [String: Date] = [:]
        var redirects: [String: (appId: String, until: Date)] = [:]
        var reserved: [String: String] = [:]
        var published: Set<String> = []
        var pendingSchedules: [String: Int] = [:]
        var notified: [String] = []
        var purgeLog: [String] = []
        var commits = 0
    }

    let state = NIOLockedValueBox(State())

    public init() {}

    // MARK: Setting up and reading back (for tests)

    /// The app has published a version (its slug is reserved from its next move on; here, at once).
    public func markPublished(appId: String) {
        state.withLockedValue { state in
            state.published.insert(appId)
            if let slug = state.apps[appId]?.app.slug { state.reserved[slug] = appId }
        }
    }

    public func addPendingSchedules(appId: String, count: Int) { state.withLockedValue { $0.pendingSchedules[appId, default: 0] += count } }
    public func pendingSchedules(appId: String) -> Int { state.withLockedValue { $0.pendingSchedules[appId] ?? 0 } }
    public func isArchived(appId: String) -> Bool? { state.withLockedValue { $0.apps[appId]?.archived } }
    /// The slugs every server process was told of, in order.
    public var notified: [String] { state.withLockedValue { $0.notified } }
    public func redirect(of slug: String) -> String? { state.withLockedValue { $0.redirects[slug]?.appId } }
    /// Ages every redirect by `seconds` (as time passing would).
    public func age(redirectsBy seconds: TimeInterval) {
        state.withLockedValue { state in
            for (slug, r) in state.redirects { state.redirects[slug] = (r.appId, r.until.addingTimeInterval(-seconds)) }
        }
    }

    // MARK: AppStorage

    public func withApps<T: Sendable>(turnOf appId: String?, _ work: @escaping @Sendable (any AppTransaction) async throws -> T) async throws -> T {
        try await keepOptimistically(state, commits: \.commits) { start in
            let tx = Transaction(state: start)
            let result = try await work(tx)
            return (tx.state, result)
        }
    }

    final class Transaction: AppTransaction {
        var state: State

        init(state: State) { self.state = state }

        func liveApp(id: String) async throws -> App? {
            guard let id = UUIDText.normalize(id), let entry = state.apps[id], !entry.archived else { return nil }
            return entry.app
        }

        func archivedApp(_ idOrSlug: String) async throws -> App? {
            let id = UUIDText.normalize(idOrSlug)
            return state.apps.values.first { entry in
                entry.archived && (id.map { entry.app.id == $0 } ?? (entry.app.slug == idOrSlug))
            }?.app
        }

        func redirectingSlugs(appId: String, limit: Int) async throws -> Set<String> {
            let now = Date()
            return Set(state.redirects.filter { $0.value.appId == appId && $0.value.until > now }.keys.prefix(limit))
        }

        func redirectUntil(_ slug: String, otherThan appId: String?) async throws -> Date? {
            guard let r = state.redirects[slug], r.until > Date(), r.appId != appId else { return nil }
            return r.until
        }

        func isReserved(_ slug: String, otherThan appId: String?) async throws -> Bool {
            state.reserved[slug].map { $0 != appId } ?? false
        }

        func hasPublished(appId: String) async throws -> Bool { state.published.contains(appId) }

        func reserve(_ slug: String, for appId: String) async throws {
            if state.reserved[slug] == nil { state.reserved[slug] = appId }
        }

        func insertApp(slug: String, name: String) async throws -> App {
            if state.apps.values.contains(where: { $0.app.slug == slug }) {
                throw StoreError.conflict("an app with slug \"\(slug)\" exists already", usedBy: [])
            }
            let app = App(id: UUIDText.random(), slug: slug, name: name, createdAt: Date())
            state.apps[app.id] = (app, false)
            return app
        }

        func updateApp(_ app: App) async throws {
            if state.apps.values.contains(where: { $0.app.slug == app.slug && $0.app.id != app.id }) {
                throw StoreError.conflict("an app with slug \"\(app.slug)\" exists already", usedBy: [])
            }
            state.apps[app.id]?.app = app
        }

        func redirect(_ oldSlug: String, to appId: String, forSeconds seconds: TimeInterval) async throws {
            state.redirects[oldSlug] = (appId, Date().addingTimeInterval(seconds))
        }

        func dropRedirect(of slug: String) async throws { state.redirects[slug] = nil }

        func setArchived(appId: String, _ archived: Bool) async throws -> String? {
            guard let entry = state.apps[appId], entry.archived != archived else { return nil }
            state.apps[appId]?.archived = archived
            state.archivedAt[appId] = archived ? Date() : nil
            return entry.app.slug
        }

        func cancelPendingSchedules(appId: String) async throws { state.pendingSchedules[appId] = 0 }

        func purge(_ app: App) async throws {
            state.apps[app.id] = nil
            state.archivedAt[app.id] = nil
            state.purgeLog.append("app purge \(app.id)")
        }

        func notifyPublished(_ slug: String) async throws { state.notified.append(slug) }
    }
}
