import Foundation
import RiversCore

// What the publishing and preview-link routes read of `InMemoryContent`, as `Store` reads it with
// SQL (Versions.swift, PreviewLinks.swift): the fast tier runs `PublishController` and
// `PreviewLinkController` on it. The draft is checked and written by the same pure code
// (`PublishCheck`, `RiversDocument`) as a publish; the versions are those `PublishService` stored.

extension InMemoryContent: VersionRepository {
    /// The app's state; an app it does not hold reads as one with nothing in it, as PostgreSQL's
    /// reads by app id find nothing.
    private func existing(_ appId: String) -> AppState {
        state(appId) ?? AppState(app: App(id: appId, slug: "", name: "", createdAt: Date()))
    }

    public func problems(appId: String) async throws -> PublishReport {
        let draft = existing(appId).draft
        return PublishReport(
            problems: PublishCheck.problems(screens: draft.screens, families: draft.families, registry: draft.registry),
            warnings: PublishCheck.warnings(screens: draft.screens, catalog: draft.registry.catalog, plugins: Set(draft.registry.plugins.keys)))
    }

    public func draftDocument(appId: String) async throws -> DocumentFragments {
        let draft = existing(appId).draft
        let plugins = draft.registry.screenPluginInfo
        return DocumentFragments(draft.screens.map { RiversDocument.fragment($0, screenPlugins: plugins) })
    }

    public func checkedDraft(appId: String) async throws -> (problems: [FieldError], document: [UInt8]?) {
        let draft = existing(appId).draft
        let problems = PublishCheck.problems(screens: draft.screens, families: draft.families, registry: draft.registry)
        return (problems, problems.isEmpty ? draft.document() : nil)
    }

    public func version(appId: String, number: Int) async throws -> PublishedVersion {
        guard let version = existing(appId).version(number) else {
            throw StoreError.notFound("no version \(number) of this app")
        }
        return version
    }

    /// The version production points at.
    public func currentVersion(appId: String) async throws -> PublishedVersion? {
        existing(appId).production
    }

    /// Newest first, without their bytes (their sizes instead), as `Store.listVersions`.
    public func listVersions(appId: String, limit: Int, offset: Int) async throws -> (versions: [PublishedVersion], total: Int) {
        let all = existing(appId).versions
        let page = all.reversed().dropFirst(max(0, offset)).prefix(max(0, limit)).map { v in
            PublishedVersion(
                appId: v.appId, number: v.number, sha256: v.sha256, document: [], gzip: [], publishedBy: v.publishedBy, note: v.note,
                rollbackOf: v.rollbackOf, createdAt: v.createdAt, size: v.document.count, gzipSize: v.gzip.count)
        }
        return (Array(page), all.count)
    }

    // MARK: PublishedDocumentSource (what the public URLs serve)

    /// Apps that serve something or are gone: published to production, with a channel, or
    /// archived (no former slugs here: a rename is `InMemoryApps`').
    public func publishedIndex() async throws -> [PublishedIndexEntry] {
        apps.withLockedValue { apps in apps.values.compactMap(Self.indexEntry) }
    }

    public func publishedIndexEntry(slug: String) async throws -> PublishedIndexEntry? {
        apps.withLockedValue { apps in apps.values.first { $0.slug == slug }.flatMap(Self.indexEntry) }
    }

    static func indexEntry(_ app: AppState) -> PublishedIndexEntry? {
        let production = app.production
        guard production != nil || app.archived || !app.channels.isEmpty else { return nil }
        var entry = PublishedIndexEntry(
            slug: app.slug, appId: app.app.id, number: production?.number ?? 0, sha256: production?.sha256 ?? "", gone: app.archived,
            generation: app.channelMoves.count, newest: app.versions.last?.number ?? 0)
        guard !app.archived else { return entry }
        for (name, channel) in app.channels where name != ChannelName.production {
            if let version = app.version(channel.version) {
                entry.channels[name] = ChannelPointer(number: version.number, sha256: version.sha256)
            }
        }
        entry.rules = app.rules.rules
        return entry
    }

    public func currentDocument(slug: String) async throws -> PublishedVersion? {
        servingApp(slug: slug).flatMap { app in app.production.map { Self.version($0, of: app) } }
    }

    public func document(slug: String, number: Int) async throws -> PublishedVersion? {
        servingApp(slug: slug).flatMap { app in app.version(number).map { Self.version($0, of: app) } }
    }

    /// The app at `slug` unless it is archived (as `Store.findApp(slug:)` finds no archived app).
    private func servingApp(slug: String) -> AppState? {
        apps.withLockedValue { apps in apps.values.first { $0.slug == slug && !$0.archived } }
    }

    /// A version as served by slug: with its app's id.
    private static func version(_ version: PublishedVersion, of app: AppState) -> PublishedVersion {
        var served = version
        served.appId = app.app.id
        return served
    }
}

extension InMemoryContent: PreviewLinkRepository {
    /// A change of the app's preview links, committed at once (a content transaction that began
    /// before it runs again, as after any other commit of the app).
    private func changeLinks<T>(_ appId: String, _ change: (inout AppState) throws -> T) throws -> T {
        try apps.withLockedValue { apps in
            guard var app = apps[appId] else { throw StoreError.notFound("no app \(appId)") }
            let result = try change(&app)
            app.commits += 1
            apps[appId] = app
            return result
        }
    }

    public func createPreviewLink(
        appId: String, name: String, expiresAt: Date, createdBy: String, grantedBy: Grantor
    ) async throws -> (secret: String, link: PreviewLink) {
        let secret = Secret.make("rvp_")
        let link = PreviewLink(id: UUIDText.random(), appId: appId, name: name, createdBy: createdBy, createdAt: Date(), expiresAt: expiresAt, lastUsedAt: nil)
        try changeLinks(appId) { app in
            // As on PostgreSQL: expired links count until they are swept, a day after expiry.
            let swept = Date().addingTimeInterval(-86400)
            app.previewLinks.removeAll { $0.link.expiresAt < swept }
            try AppCaps.refuseAtCap(app.previewLinks.count, limit: Limits.maxPreviewLinksPerApp, "preview links")
            app.previewLinks.append((link, sha256Hex(Array(secret.utf8))))
        }
        return (secret, link)
    }

    public func previewLinks(appId: String, limit: Int, offset: Int) async throws -> (links: [PreviewLink], total: Int) {
        // Oldest first, as PostgreSQL orders them (by when made, then id).
        let all = existing(appId).previewLinks.map(\.link).sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        return (Array(all.dropFirst(max(0, offset)).prefix(max(0, limit))), all.count)
    }

    public func revokePreviewLink(appId: String, id: String) async throws {
        try changeLinks(appId) { app in
            guard let key = UUIDText.normalize(id), let i = app.previewLinks.firstIndex(where: { $0.link.id == key }) else {
                throw StoreError.notFound("no preview link \(id) in this app")
            }
            app.previewLinks.remove(at: i)
        }
    }

    /// The app and link a secret opens; its last use recorded at most once a minute.
    public func previewLink(secret: String) async throws -> PreviewLinkLookup {
        guard Store.isPreviewSecretShaped(secret) else { return .unknown }
        let hash = sha256Hex(Array(secret.utf8)), now = Date()
        return apps.withLockedValue { apps -> PreviewLinkLookup in
            for (appId, var app) in apps where !app.archived {
                guard let i = app.previewLinks.firstIndex(where: { $0.hash == hash }) else { continue }
                let link = app.previewLinks[i].link
                guard link.expiresAt > now.addingTimeInterval(-86400) else { return .unknown }
                guard link.expiresAt > now else { return .expired }
                if (link.lastUsedAt.map { $0 < now.addingTimeInterval(-60) }) ?? true {
                    app.previewLinks[i].link.lastUsedAt = now
                    app.commits += 1
                    apps[appId] = app
                }
                return .live(app.app, link)
            }
            return .unknown
        }
    }
}
