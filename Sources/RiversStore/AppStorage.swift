import Foundation
import RiversCore

/// Where apps are kept, for their use cases (`AppService` in RiversServices): the service holds
/// the rules of slugs (their form; one that still redirects to another app, or that published
/// another app's documents, is not taken; a former slug redirects for `Store.slugRedirectLifetime`),
/// of archiving (pending schedules are cancelled) and of purging (only an archived app); a storage
/// only reads and writes. `Store` runs each use case as one transaction (and forgets the valid
/// tokens it keeps when it commits: tokens carry their app); `InMemoryApps` on a copy.
public protocol AppStorage: Sendable {
    /// One transaction; when it changes the live app `turnOf`, in that app's turn, as every write
    /// of the app's content is (`Store.withApp`): its row is locked, and a wait for it is spent in
    /// memory, not on a pooled connection.
    func withApps<T: Sendable>(turnOf appId: String?, _ work: @escaping @Sendable (any AppTransaction) async throws -> T) async throws -> T
}

extension AppStorage {
    /// One transaction that changes no live app (creates one, or restores or purges an archived one).
    public func withApps<T: Sendable>(_ work: @escaping @Sendable (any AppTransaction) async throws -> T) async throws -> T {
        try await withApps(turnOf: nil, work)
    }
}

/// The apps inside one transaction.
public protocol AppTransaction: AnyObject {
    /// The app `id` if it is not archived, its row locked; nil otherwise.
    func liveApp(id: String) async throws -> App?
    /// The archived app with this id or slug, its row locked; nil when there is none.
    func archivedApp(_ idOrSlug: String) async throws -> App?
    /// Until when `slug` still redirects to an app other than `appId` (nil: it does not).
    func redirectUntil(_ slug: String, otherThan appId: String?) async throws -> Date?
    /// Whether an app other than `appId` published documents under `slug` once.
    func isReserved(_ slug: String, otherThan appId: String?) async throws -> Bool
    func hasPublished(appId: String) async throws -> Bool
    /// The former slugs of `appId` that still redirect to it, at most `limit` of them.
    func redirectingSlugs(appId: String, limit: Int) async throws -> Set<String>
    /// Records that `appId`'s documents are public under `slug`, for good.
    func reserve(_ slug: String, for appId: String) async throws
    /// A new app; a conflict when its slug is taken.
    func insertApp(slug: String, name: String) async throws -> App
    /// Writes an app's name and slug; a conflict when the slug is taken.
    func updateApp(_ app: App) async throws
    /// `oldSlug`'s public URLs redirect to `appId` for `seconds`.
    func redirect(_ oldSlug: String, to appId: String, forSeconds seconds: TimeInterval) async throws
    /// `slug` redirects nowhere any more.
    func dropRedirect(of slug: String) async throws
    /// Archives or restores an app; its slug, or nil when it was already so.
    func setArchived(appId: String, _ archived: Bool) async throws -> String?
    /// Cancels the app's schedules that neither fired nor were cancelled.
    func cancelPendingSchedules(appId: String) async throws
    /// Removes an archived app for good, with its versions and its audit entries (the purge
    /// itself is written to the instance's log).
    func purge(_ app: App) async throws
    /// Every server process serves what changed under `slug` once the transaction commits.
    func notifyPublished(_ slug: String) async throws
}
