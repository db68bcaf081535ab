import Foundation
import RiversCore
import RiversStore

/// The use cases of apps: make one, rename it or change its slug, archive it, restore it, purge
/// it. Each is one transaction over an `AppStorage`; the rules are here. A slug is the app's
/// public URL: one that still redirects to another app, or under which another app's documents
/// were published (caches may hold them for a year), is never handed to a new owner; a former
/// slug keeps redirecting for `Store.slugRedirectLifetime`.
public struct AppService: Sendable {
    let storage: any AppStorage

    public init(storage: any AppStorage) { self.storage = storage }

    static func checkSlug(_ slug: String) throws {
        guard Store.isValidSlug(slug) else { throw StoreError.invalid([FieldError("/slug", Store.slugRule)]) }
    }

    /// 409 when `slug` may not become `appId`'s (a new app's when nil).
    static func refuseTaken(_ slug: String, by appId: String?, in tx: any AppTransaction) async throws {
        if let until = try await tx.redirectUntil(slug, otherThan: appId) {
            throw StoreError.conflict(
                "the slug \"\(slug)\" still redirects to another app (until \(Timestamp.format(until))): choose another", usedBy: [])
        }
        if try await tx.isReserved(slug, otherThan: appId) {
            throw StoreError.conflict(
                "the slug \"\(slug)\" published another app's documents once (caches may still serve them): slugs of published apps are never reused, choose another",
                usedBy: [])
        }
    }

    public func create(slug: String, name: String) async throws -> App {
        try Self.checkSlug(slug)
        return try await storage.withApps { tx in
            try await Self.refuseTaken(slug, by: nil, in: tx)
            // A former slug whose redirect has expired becomes this app's.
            try await tx.dropRedirect(of: slug)
            return try await tx.insertApp(slug: slug, name: name)
        }
    }

    /// Renames an app and/or changes its slug; the old slug then redirects. Every server process
    /// serves the change at once.
    public func update(appId: String, name: String?, slug: String?) async throws -> App {
        if let slug { try Self.checkSlug(slug) }
        return try await storage.withApps(turnOf: appId) { tx in
            guard var app = try await tx.liveApp(id: appId) else { throw StoreError.notFound("no app \(appId)") }
            let oldSlug = app.slug
            if let name { app.name = name }
            if let slug { app.slug = slug }
            try await tx.updateApp(app)
            if app.slug != oldSlug {
                try await Self.refuseTaken(app.slug, by: appId, in: tx)
                // Each slug change holds the old slug for 90 days (it redirects, and no other app
                // may take it): bounded, so that no team can take a namespace's worth of slugs
                // from the others by renaming. Going back to one of them holds none more.
                let former = try await tx.redirectingSlugs(appId: appId, limit: Limits.maxFormerSlugsPerApp)
                if !former.contains(app.slug), former.count >= Limits.maxFormerSlugsPerApp {
                    throw StoreError.conflict(
                        "this app changed its slug \(Limits.maxFormerSlugsPerApp) times within 90 days, and each former slug still redirects to it: go back to one of them, or wait until the oldest stops redirecting",
                        usedBy: [])
                }
                if try await tx.hasPublished(appId: appId) { try await tx.reserve(app.slug, for: appId) }
                try await tx.dropRedirect(of: app.slug)
                try await tx.redirect(oldSlug, to: appId, forSeconds: Store.slugRedirectLifetime)
                for changed in [oldSlug, app.slug] { try await tx.notifyPublished(changed) }
            }
            return app
        }
    }

    /// Archives an app: nothing is removed, but its API and tokens stop answering and its public
    /// URLs answer 410 Gone until an instance admin restores it. Its pending schedules are
    /// cancelled: a promotion planned for an app that was then archived must not fire the moment
    /// it is restored, possibly weeks late.
    public func archive(appId: String) async throws {
        try await storage.withApps(turnOf: appId) { tx in
            guard let slug = try await tx.setArchived(appId: appId, true) else { throw StoreError.notFound("no app \(appId)") }
            try await tx.cancelPendingSchedules(appId: appId)
            try await tx.notifyPublished(slug)
        }
    }

    /// Restores an archived app (nil when there is no archived app with this id or slug).
    public func restore(_ idOrSlug: String) async throws -> App? {
        try await storage.withApps { tx in
            guard let app = try await tx.archivedApp(idOrSlug), let slug = try await tx.setArchived(appId: app.id, false) else { return nil }
            try await tx.notifyPublished(slug)
            return app
        }
    }

    /// Removes an archived app for good, with its versions and its audit entries (nil when there
    /// is no archived app with this id or slug). Only an archived app can be purged, so nothing in
    /// use disappears by a slip.
    public func purge(_ idOrSlug: String) async throws -> App? {
        try await storage.withApps { tx in
            guard let app = try await tx.archivedApp(idOrSlug) else { return nil }
            try await tx.purge(app)
            try await tx.notifyPublished(app.slug)
            return app
        }
    }
}
