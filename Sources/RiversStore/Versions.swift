import Crypto
import Foundation
import PostgresNIO
import RiversCore
import RiversLayout

/// One published version of an app's rivers.json: immutable.
/// An app's current version as the public URL needs to know it: which number, and its hash
/// (the ETag), without the document's bytes.
/// A slug that serves nothing itself is in the index too: an archived app's (410 Gone) and a
/// former slug of a renamed app (301 to `movedTo`, for 90 days); their `number` is 0.
/// `appId` says whose: cached documents are kept by app id, never by slug alone, so a slug
/// that passes to another app can never serve the former owner's bytes.
public struct PublishedIndexEntry: Sendable, Hashable {
    public var slug: String
    public var appId: String
    public var number: Int
    public var sha256: String
    public var gone: Bool
    public var movedTo: String?
    /// The app's channels other than production (which is `number` and `sha256`), and its
    /// release rules: the public channel and app-version URLs are resolved from these alone.
    public var channels: [String: ChannelPointer]
    public var rules: [ReleaseRule]
    /// The app's latest channel move (ids grow with each move of the app, made under its row
    /// lock): which of two readings of an entry is the later one, now that production can also
    /// move back to an older number.
    public var generation: Int
    /// The app's newest version (every number up to it exists; it may be above production's).
    public var newest: Int
    public init(
        slug: String, appId: String, number: Int, sha256: String, gone: Bool = false, movedTo: String? = nil,
        channels: [String: ChannelPointer] = [:], rules: [ReleaseRule] = [], generation: Int = 0, newest: Int? = nil
    ) {
        self.slug = slug
        self.appId = appId
        self.number = number
        self.sha256 = sha256
        self.gone = gone
        self.movedTo = movedTo
        self.channels = channels
        self.rules = rules
        self.generation = generation
        self.newest = max(newest ?? number, number)
    }

    /// What a channel serves: production's pointer is the entry's own.
    public func pointer(channel: String) -> ChannelPointer? {
        if channel == ChannelName.production { return number > 0 ? ChannelPointer(number: number, sha256: sha256) : nil }
        return channels[channel]
    }
}

/// A version a channel points at, and its hash.
public struct ChannelPointer: Sendable, Hashable {
    public var number: Int
    public var sha256: String
    public init(number: Int, sha256: String) {
        self.number = number
        self.sha256 = sha256
    }
}

public struct PublishedVersion: Sendable {
    /// The app it belongs to (empty where the caller already knows it and nothing reads it).
    public var appId: String
    public var number: Int
    public var sha256: String
    public var document: [UInt8]
    public var gzip: [UInt8]
    public var publishedBy: String
    public var note: String
    public var rollbackOf: Int?
    public var createdAt: Date
    /// Sizes in bytes (also known when a listing leaves the bytes out).
    public var size: Int
    public var gzipSize: Int

    public init(appId: String = "", number: Int, sha256: String, document: [UInt8], gzip: [UInt8], publishedBy: String, note: String, rollbackOf: Int?, createdAt: Date, size: Int? = nil, gzipSize: Int? = nil) {
        self.appId = appId
        self.number = number
        self.sha256 = sha256
        self.document = document
        self.gzip = gzip
        self.publishedBy = publishedBy
        self.note = note
        self.rollbackOf = rollbackOf
        self.createdAt = createdAt
        self.size = size ?? document.count
        self.gzipSize = gzipSize ?? gzip.count
    }
}

/// What a publish did: a new version, or nothing because the document did not change.
public enum PublishOutcome: Sendable {
    case published(PublishedVersion)
    case unchanged(PublishedVersion)
}

/// The channel every server process listens on; the payload is the app's slug.
public let publishedChannel = "rivers_published"

public func sha256Hex(_ bytes: [UInt8]) -> String {
    SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
}

extension Store {
    /// The problems that would stop a publish now, and the warnings it would go ahead with.
    public func problems(appId: String) async throws -> PublishReport {
        try await client.reading { connection in
            let content = try await self.content(appId: appId, on: connection)
            return PublishReport(
                problems: checkProblems(content, appId: appId),
                warnings: PublishCheck.warnings(screens: content.screens, catalog: content.registry.catalog, plugins: Set(content.registry.plugins.keys)))
        }
    }

    /// The document as it would be published now: the bytes a publish would store, as the bytes
    /// of its screens.
    public func draftDocument(appId: String) async throws -> DocumentFragments {
        try await client.reading { connection in
            documentFragments(try await self.content(appId: appId, on: connection))
        }
    }

    /// The draft as a preview link serves it: checked like a publish, in one read; the document's
    /// bytes only when nothing stops it.
    public func checkedDraft(appId: String) async throws -> (problems: [FieldError], document: [UInt8]?) {
        try await client.reading { connection in
            let content = try await self.content(appId: appId, on: connection)
            let problems = self.checkProblems(content, appId: appId)
            return (problems, problems.isEmpty ? self.makeDocument(content) : nil)
        }
    }

    func checkProblems(_ content: AppContent, appId: String) -> [FieldError] {
        PublishCheck.problems(screens: content.screens, families: content.families, registry: content.registry)
    }

    func currentVersion(appId: String, on connection: PostgresConnection) async throws -> PublishedVersion? {
        let rows = try await connection.query(
            """
            SELECT v.number, v.sha256, v.document, v.gzip, v.published_by, v.note, v.rollback_of, v.created_at
            FROM versions v JOIN apps a ON a.id = v.app_id AND a.current_version = v.number
            WHERE a.id = \(appId)::uuid
            """, logger: logger)
        return try await Self.versions(from: rows).first
    }

    func version(appId: String, number: Int, on connection: PostgresConnection) async throws -> PublishedVersion? {
        let rows = try await connection.query(
            """
            SELECT number, sha256, document, gzip, published_by, note, rollback_of, created_at
            FROM versions WHERE app_id = \(appId)::uuid AND number = \(number)
            """, logger: logger)
        return try await Self.versions(from: rows).first
    }

    static func versions(from rows: PostgresRowSequence) async throws -> [PublishedVersion] {
        var result: [PublishedVersion] = []
        for try await (number, sha, document, gzip, by, note, rollbackOf, created) in rows.decode(
            (Int, String, ByteBuffer, ByteBuffer, String, String, Int?, Date).self)
        {
            result.append(PublishedVersion(
                number: number, sha256: sha, document: Array(buffer: document), gzip: Array(buffer: gzip),
                publishedBy: by, note: note, rollbackOf: rollbackOf, createdAt: created))
        }
        return result
    }

    public func version(appId: String, number: Int) async throws -> PublishedVersion {
        guard let v = try await client.reading({ try await self.version(appId: appId, number: number, on: $0) }) else {
            throw StoreError.notFound("no version \(number) of this app")
        }
        return v
    }

    public func currentVersion(appId: String) async throws -> PublishedVersion? {
        try await client.reading { try await self.currentVersion(appId: appId, on: $0) }
    }

    /// Versions, newest first, without their bytes.
    public func listVersions(appId: String, limit: Int, offset: Int) async throws -> (versions: [PublishedVersion], total: Int) {
        let rows = try await client.query(
            """
            SELECT number, sha256, published_by, note, rollback_of, created_at, length(document), length(gzip), count(*) OVER ()
            FROM versions WHERE app_id = \(appId)::uuid ORDER BY number DESC LIMIT \(limit) OFFSET \(offset)
            """, logger: logger)
        var versions: [PublishedVersion] = []
        var total = 0
        for try await (number, sha, by, note, rollbackOf, created, size, gzipSize, count) in rows.decode(
            (Int, String, String, String, Int?, Date, Int, Int, Int).self)
        {
            versions.append(PublishedVersion(
                number: number, sha256: sha, document: [], gzip: [], publishedBy: by, note: note, rollbackOf: rollbackOf,
                createdAt: created, size: size, gzipSize: gzipSize))
            total = count
        }
        if versions.isEmpty {
            for try await n in try await client.query(
                "SELECT count(*) FROM versions WHERE app_id = \(appId)::uuid", logger: logger
            ).decode(Int.self) { total = n }
        }
        return (versions, total)
    }

    // MARK: Serving

    /// Every app's current version, without its bytes: what a process checks to know what to
    /// serve (a few bytes per app, so it stays cheap with many apps); with the slugs of archived
    /// apps and the former slugs of renamed ones.
    public func publishedIndex() async throws -> [PublishedIndexEntry] {
        try await indexEntries(slug: nil)
    }

    /// One slug's entry; nil when nothing is published there.
    public func publishedIndexEntry(slug: String) async throws -> PublishedIndexEntry? {
        try await indexEntries(slug: slug).first
    }

    private func indexEntries(slug: String?) async throws -> [PublishedIndexEntry] {
        try await client.reading { connection in
            let rows = try await connection.query(
                """
                SELECT a.slug, a.id::text, coalesce(v.number, 0), coalesce(v.sha256, ''), a.archived_at IS NOT NULL, NULL::text,
                       coalesce((SELECT max(m.id) FROM channel_moves m WHERE m.app_id = a.id), 0),
                       coalesce((SELECT max(n.number) FROM versions n WHERE n.app_id = a.id), 0)
                FROM apps a LEFT JOIN versions v ON v.app_id = a.id AND v.number = a.current_version
                WHERE (v.number IS NOT NULL OR a.archived_at IS NOT NULL OR EXISTS (SELECT 1 FROM channels c WHERE c.app_id = a.id))
                  AND (CAST(\(slug) AS text) IS NULL OR a.slug = \(slug))
                UNION ALL
                SELECT r.old_slug, a.id::text, 0, '', a.archived_at IS NOT NULL, a.slug, 0::bigint, 0
                FROM slug_redirects r JOIN apps a ON a.id = r.app_id
                WHERE r.expires_at > now() AND (CAST(\(slug) AS text) IS NULL OR r.old_slug = \(slug))
                  AND NOT EXISTS (SELECT 1 FROM apps b WHERE b.slug = r.old_slug)
                """, logger: self.logger)
            var result: [PublishedIndexEntry] = []
            var bySlug: [String: Int] = [:]
            for try await (slug, appId, number, sha, gone, movedTo, generation, newest) in rows.decode(
                (String, String, Int, String, Bool, String?, Int, Int).self)
            {
                if movedTo == nil { bySlug[slug] = result.count }
                result.append(PublishedIndexEntry(
                    slug: slug, appId: appId, number: number, sha256: sha, gone: gone, movedTo: movedTo, generation: generation, newest: newest))
            }
            // Channels besides production, and release rules, of the apps that serve.
            let channels = try await connection.query(
                """
                SELECT a.slug, c.name, c.version, v.sha256 FROM channels c
                JOIN apps a ON a.id = c.app_id AND a.archived_at IS NULL
                JOIN versions v ON v.app_id = c.app_id AND v.number = c.version
                WHERE c.name <> 'production' AND (CAST(\(slug) AS text) IS NULL OR a.slug = \(slug))
                """, logger: self.logger)
            for try await (slug, name, number, sha) in channels.decode((String, String, Int, String).self) {
                if let i = bySlug[slug] { result[i].channels[name] = ChannelPointer(number: number, sha256: sha) }
            }
            let rules = try await connection.query(
                """
                SELECT a.slug, r.rules::text FROM release_rules r JOIN apps a ON a.id = r.app_id AND a.archived_at IS NULL
                WHERE jsonb_array_length(r.rules) > 0 AND (CAST(\(slug) AS text) IS NULL OR a.slug = \(slug))
                """, logger: self.logger)
            for try await (slug, text) in rules.decode((String, String).self) {
                if let i = bySlug[slug] { result[i].rules = Self.storedRules(text) }
            }
            return result
        }
    }

    /// The current document of one app by slug.
    public func currentDocument(slug: String) async throws -> PublishedVersion? {
        guard let app = try await findApp(slug: slug) else { return nil }
        var version = try await currentVersion(appId: app.id)
        version?.appId = app.id
        return version
    }

    /// Version `number` of an app by slug.
    public func document(slug: String, number: Int) async throws -> PublishedVersion? {
        guard let app = try await findApp(slug: slug) else { return nil }
        var version = try await client.reading { try await self.version(appId: app.id, number: number, on: $0) }
        version?.appId = app.id
        return version
    }
}

// MARK: - Publishing

extension Store: VersionStorage {
    public func withVersions<T: Sendable>(
        appId: String, _ work: @escaping @Sendable (any VersionTransaction) async throws -> T
    ) async throws -> T {
        try await withApp(appId) { try await work($0) }
    }
}

/// What publishing (`PublishService`) reads and writes of one app in one PostgreSQL transaction:
/// SQL only.
extension PostgresContentTransaction: VersionTransaction {
    func draft() async throws -> Draft {
        let content = try await store.content(appId: appId, on: connection)
        let store = store
        return Draft(screens: content.screens, families: content.families, registry: content.registry, document: { store.makeDocument(content) })
    }

    func version(number: Int) async throws -> PublishedVersion? {
        try await store.version(appId: appId, number: number, on: connection)
    }

    func sha256(ofVersion number: Int) async throws -> String? {
        for try await sha in try await connection.query(
            "SELECT sha256 FROM versions WHERE app_id = \(appId)::uuid AND number = \(number)", logger: logger
        ).decode(String.self) { return sha }
        return nil
    }

    func insert(_ version: PublishedVersion) async throws -> Date {
        for try await date in try await connection.query(
            """
            INSERT INTO versions (app_id, number, document, sha256, gzip, published_by, note, rollback_of)
            VALUES (\(appId)::uuid, \(version.number), \(Data(version.document)), \(version.sha256), \(Data(version.gzip)),
                    \(version.publishedBy), \(version.note), \(version.rollbackOf))
            RETURNING created_at
            """, logger: logger
        ).decode(Date.self) { return date }
        return Date()
    }
}

// MARK: - Import

/// What an import (`ImportService`) needs of one app in one PostgreSQL transaction besides its
/// screens, families and plugins: SQL only.
extension PostgresContentTransaction {
    func deleteAllScreens() async throws {
        try await connection.query("DELETE FROM screens WHERE app_id = \(appId)::uuid", logger: logger)
    }

    func screenTypes() async throws -> Set<String> {
        var types: Set<String> = []
        for try await type in try await connection.query(
            "SELECT screen_type FROM screens WHERE app_id = \(appId)::uuid", logger: logger
        ).decode(String.self) { types.insert(type) }
        return types
    }

    func hasHome() async throws -> Bool {
        for try await found in try await connection.query(
            "SELECT EXISTS (SELECT 1 FROM screens WHERE app_id = \(appId)::uuid AND home)", logger: logger
        ).decode(Bool.self) { return found }
        return false
    }

    func insertImported(_ screen: Screen, parent: String?) async throws -> Record {
        try await store.returnedRecord(
            connection.query(
                """
                INSERT INTO screens (app_id, id, screen_type, home, parent, family, targets, body)
                VALUES (\(appId)::uuid, \(screen.id)::uuid, \(screen.screenType), \(screen.home), \(parent)::uuid,
                        \(screen.family), \(screen.targets.sorted())::uuid[], \(Store.storedBody(screen))::jsonb)
                RETURNING revision, created_at, updated_at
                """, logger: logger), body: screen.json)
    }

    func setParent(of screen: String, to parent: String) async throws {
        try await connection.query(
            "UPDATE screens SET parent = \(parent)::uuid WHERE app_id = \(appId)::uuid AND id = \(screen)::uuid", logger: logger)
    }

    func setNextScreenNumber(_ number: Int) async throws {
        try await connection.query("UPDATE apps SET next_screen_number = \(number) WHERE id = \(appId)::uuid", logger: logger)
    }

    func largestStoredBytes(screens ids: [String]) async throws -> Int {
        try await store.number(
            "SELECT coalesce(max(body_bytes), 0)::int FROM screens WHERE app_id = \(appId)::uuid AND id = ANY(\(ids)::uuid[])", on: connection)
    }

    func audit(kind: String, resourceId: String, action: String, summary: String) async throws {
        try await store.appendAudit(appId: appId, kind: kind, resourceId: resourceId, action: action, summary: summary, on: connection)
    }
}
