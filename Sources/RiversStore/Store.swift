import Crypto
import Foundation
import Logging
import PostgresNIO
import RiversCore

/// What went wrong with a request, in terms the HTTP layer maps to a status.
public enum StoreError: Error, Sendable {
    /// 404: the thing does not exist (or belongs to another app).
    case notFound(String)
    /// 412: the `If-Match` revision is not the current one.
    case preconditionFailed(current: Int)
    /// 409: the change conflicts with other data; `usedBy` names who.
    case conflict(String, usedBy: [ResourceUse])
    /// 422: the body breaks the rules.
    case invalid([FieldError])
    /// 503 `busy`: too much of the same is waiting already; retry in a moment.
    case busy(String)
}

/// The `If-Match` precondition of a write.
public enum RevisionPrecondition: Sendable, Equatable {
    case none
    case any
    case oneOf([Int])

    public func check(_ current: Int) throws {
        switch self {
        case .none, .any: return
        case .oneOf(let revisions):
            if !revisions.contains(current) { throw StoreError.preconditionFailed(current: current) }
        }
    }
}

/// One stored resource: its JSON and bookkeeping.
public struct Record: Sendable {
    public var body: JSONValue
    public var revision: Int
    public var createdAt: Date
    public var updatedAt: Date
}

/// A resource as the JSON text its table keeps (an object, without the bookkeeping): a read
/// answers with these bytes instead of parsing and writing them again.
public struct RecordText: Sendable {
    public var body: ByteBuffer
    public var revision: Int
    public var createdAt: Date
    public var updatedAt: Date

    public init(body: ByteBuffer, revision: Int, createdAt: Date, updatedAt: Date) {
        self.body = body
        self.revision = revision
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

public enum Timestamp {
    public static func format(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// An RFC 3339 date-time (`format: date-time`): fractional seconds of any length, `Z` or an
    /// offset like `+05:30`, `T`/`t` and `Z`/`z` in either case (`RFC3339.swift`); nil for anything else.
    public static func parse(_ text: String) -> Date? {
        RFC3339.parse(text)
    }
}

public struct App: Sendable, Equatable {
    public var id: String
    public var slug: String
    public var name: String
    public var createdAt: Date
}

/// A page of a list: its items, how many there are in all, and where the page starts.
public struct Page<Item: Sendable>: Sendable {
    public var items: [Item]
    public var total: Int
    public var limit: Int
    public var offset: Int
}

/// A page of stored texts.
public typealias TextPage = Page<RecordText>

/// Persistence of apps, tokens, families, layouts and screens on PostgreSQL.
/// Every write is one transaction; reads see committed data only.
public struct Store: Sendable {
    public let client: PostgresClient
    public let logger: Logger
    let registries = RegistryCache()
    let tokens = TokenCache()
    let savedScreens = SavedScreenCache()
    let publishedScreens = PublishedScreensCache()
    /// One transaction over an app at a time in this process (`withApp`).
    let appTurns = AppTurns()

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    // MARK: Apps and tokens

    /// Lower-case letters, digits and `-`, and never shaped like a UUID: an app is found by its id
    /// or its slug, and a slug must never be taken for another app's id.
    public static func isValidSlug(_ slug: String) -> Bool {
        guard let first = slug.first, first.isASCII, first.isLowercase || first.isNumber, slug.count <= 63 else { return false }
        return slug.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") } && UUIDText.normalize(slug) == nil
    }

    /// Finds an app by id or slug, by the kind of key given: a UUID is an id, anything else a slug.
    /// An archived app is not found.
    public func findApp(_ idOrSlug: String) async throws -> App? {
        if let id = UUIDText.normalize(idOrSlug) {
            return try await app(rows: client.query("SELECT id::text, slug, name, created_at FROM apps WHERE id = \(id)::uuid AND archived_at IS NULL", logger: logger))
        }
        return try await findApp(slug: idOrSlug)
    }

    /// Finds an app by slug only (public URLs name apps by slug).
    public func findApp(slug: String) async throws -> App? {
        guard Self.isValidSlug(slug) else { return nil }
        return try await app(rows: client.query("SELECT id::text, slug, name, created_at FROM apps WHERE slug = \(slug) AND archived_at IS NULL", logger: logger))
    }

    func app(rows: PostgresRowSequence) async throws -> App? {
        for try await (id, slug, name, createdAt) in rows.decode((String, String, String, Date).self) {
            return App(id: id, slug: slug, name: name, createdAt: createdAt)
        }
        return nil
    }

    public func app(id: String) async throws -> App {
        guard let app = try await findApp(id) else { throw StoreError.notFound("no app \(id)") }
        return app
    }

    /// Stores a new API token of an app in the caller's transaction: the token (returned once;
    /// only its hash is stored) and what its admins see.
    func insertToken(
        appId: String, name: String, role: Role, expiresAt: Date?, createdBy: String, grantedBy: Grantor, on connection: PostgresConnection
    ) async throws -> (token: String, info: TokenInfo) {
        let token = Secret.make("rvs_"), id = UUIDText.random()
        let createdAt = try await connection.query(
            """
            INSERT INTO api_tokens (id, app_id, token_hash, name, role, expires_at, created_by, granted_by_user, granted_by_token)
            VALUES (\(id)::uuid, \(appId)::uuid, \(Self.hash(token)), \(name), \(role.rawValue), \(expiresAt), \(createdBy),
                    CAST(\(grantedBy.userId) AS uuid), CAST(\(grantedBy.tokenId) AS uuid))
            RETURNING created_at
            """, logger: logger
        ).collect().first?.decode(Date.self)
        return (token, TokenInfo(id: id, name: name, role: role, createdBy: createdBy, createdAt: createdAt ?? Date(), expiresAt: expiresAt, lastUsedAt: nil))
    }

    /// The app a token belongs to and the token, in one query; nil for an unknown or expired
    /// token, or one whose app is archived. Its last use is recorded at most once a minute.
    public func tokenOwner(_ token: String) async throws -> (app: App, token: TokenInfo)? {
        let hash = Self.hash(token), logger = self.logger
        if let known = tokens.lookup(hash) { return known }
        let generation = tokens.generation
        let found = try await client.reading { connection -> (app: App, token: TokenInfo)? in
            let rows = try await connection.query(
                """
                SELECT a.id::text, a.slug, a.name, a.created_at, t.id::text, t.name, t.role, t.created_by, t.created_at, t.expires_at,
                       t.last_used_at, t.last_used_at IS NULL OR t.last_used_at < now() - interval '1 minute'
                FROM api_tokens t JOIN apps a ON a.id = t.app_id
                WHERE t.token_hash = \(hash) AND (t.expires_at IS NULL OR t.expires_at > now()) AND a.archived_at IS NULL
                """,
                logger: logger)
            for try await (id, slug, name, createdAt, tokenId, tokenName, role, by, tokenCreated, expires, used, stale) in rows.decode(
                (String, String, String, Date, String, String, String, String, Date, Date?, Date?, Bool).self)
            {
                if stale {
                    try await connection.query("UPDATE api_tokens SET last_used_at = now() WHERE token_hash = \(hash)", logger: logger)
                }
                return (
                    App(id: id, slug: slug, name: name, createdAt: createdAt),
                    TokenInfo(id: tokenId, name: tokenName, role: Role(rawValue: role) ?? .viewer, createdBy: by, createdAt: tokenCreated,
                              expiresAt: expires, lastUsedAt: used)
                )
            }
            return nil
        }
        if let found { tokens.keep(found, hash: hash, ifStill: generation) }
        return found
    }

    static func hash(_ token: String) -> Data {
        Data(SHA256.hash(data: Array(token.utf8)))
    }
}

extension PSQLError {
    var isUniqueViolation: Bool { serverInfo?[.sqlState] == "23505" }
}

// MARK: - Document tables

/// How a read locks the row it returns, until the transaction ends.
enum RowLock: String {
    case none = ""
    case share = "FOR SHARE"
    case update = "FOR UPDATE"
}

/// The tables that keep a resource as JSON with a revision. Table names come from this closed
/// set of constants, never from input; every value is a bound parameter.
public enum DocumentTable: String, Sendable {
    case families, layouts, screens

    var idType: String { self == .screens ? "uuid" : "text" }
    /// Screens carry `home` in a column of its own, merged into the JSON on the way out.
    var selectBody: String { self == .screens ? "(body || jsonb_build_object('home', home))::text" : "body::text" }
    var noun: String {
        switch self {
        case .families: return "family"
        case .layouts: return "layout"
        case .screens: return "screen"
        }
    }
}

extension Store {
    public static let maxPageSize = 200

    public func listText(_ table: DocumentTable, appId: String, limit: Int, offset: Int) async throws -> TextPage {
        let limit = max(1, min(limit, Self.maxPageSize))
        let offset = max(0, offset)
        let rows = try await client.query(
            """
            SELECT \(unescaped: table.selectBody), revision, created_at, updated_at, count(*) OVER ()
            FROM \(unescaped: table.rawValue) WHERE app_id = \(appId)::uuid
            ORDER BY position LIMIT \(limit) OFFSET \(offset)
            """, logger: logger)
        var items: [RecordText] = []
        var total = 0
        for try await (body, revision, created, updated, count) in rows.decode((ByteBuffer, Int, Date, Date, Int).self) {
            items.append(RecordText(body: body, revision: revision, createdAt: created, updatedAt: updated))
            total = count
        }
        if items.isEmpty, offset > 0 {
            total = try await count(table, appId: appId)
        }
        return TextPage(items: items, total: total, limit: limit, offset: offset)
    }

    func count(_ table: DocumentTable, appId: String) async throws -> Int {
        let rows = try await client.query(
            "SELECT count(*) FROM \(unescaped: table.rawValue) WHERE app_id = \(appId)::uuid", logger: logger)
        for try await n in rows.decode(Int.self) { return n }
        return 0
    }

    func get(_ table: DocumentTable, appId: String, id: String) async throws -> Record {
        try await client.reading { try await self.fetch(table, appId: appId, id: id, on: $0, lock: .none) }
    }

    /// Reads one resource as its stored text: what a GET answers, with nothing parsed.
    public func recordText(_ table: DocumentTable, appId: String, id: String) async throws -> RecordText {
        let found = try await client.reading { try await self.fetchText(table, appId: appId, id: id, on: $0, lock: .none) }
        guard let found else { throw StoreError.notFound("no \(table.noun) \(id) in this app") }
        return found
    }

    /// Reads one resource; with `lock`, holds its row until the transaction ends.
    func fetch(_ table: DocumentTable, appId: String, id: String, on connection: PostgresConnection, lock: RowLock) async throws -> Record {
        guard let record = try await fetchIfPresent(table, appId: appId, id: id, on: connection, lock: lock) else {
            throw StoreError.notFound("no \(table.noun) \(id) in this app")
        }
        return record
    }

    func fetchIfPresent(_ table: DocumentTable, appId: String, id: String, on connection: PostgresConnection, lock: RowLock) async throws -> Record? {
        guard let text = try await fetchText(table, appId: appId, id: id, on: connection, lock: lock) else { return nil }
        return Record(body: try JSONValue.parse(text.body.readableBytesView), revision: text.revision, createdAt: text.createdAt, updatedAt: text.updatedAt)
    }

    func fetchText(_ table: DocumentTable, appId: String, id: String, on connection: PostgresConnection, lock: RowLock) async throws -> RecordText? {
        if table == .screens, UUIDText.normalize(id) == nil { return nil }
        let rows = try await connection.query(
            """
            SELECT \(unescaped: table.selectBody), revision, created_at, updated_at
            FROM \(unescaped: table.rawValue)
            WHERE app_id = \(appId)::uuid AND id = CAST(\(id) AS \(unescaped: table.idType))
            \(unescaped: lock.rawValue)
            """, logger: logger)
        for try await (body, revision, created, updated) in rows.decode((ByteBuffer, Int, Date, Date).self) {
            return RecordText(body: body, revision: revision, createdAt: created, updatedAt: updated)
        }
        return nil
    }

    /// One number a statement selects, in a transaction.
    func number(_ statement: PostgresQuery, on connection: PostgresConnection) async throws -> Int {
        for try await n in try await connection.query(statement, logger: logger).decode(Int.self) { return n }
        return 0
    }

    /// In the transaction of a write of screens or families, after it: the app's screens and
    /// families together stay within `Limits.maxAppBytes` as stored (else the write rolls back).
    func checkAppSize(appId: String, on connection: PostgresConnection) async throws {
        try AppCaps.checkAppBytes(try await appBytes(appId: appId, on: connection))
    }

    /// The stored size of the app's screens and families together.
    func appBytes(appId: String, on connection: PostgresConnection) async throws -> Int {
        try await number(
            """
            SELECT ((SELECT coalesce(sum(body_bytes), 0) FROM screens WHERE app_id = \(appId)::uuid)
                  + (SELECT coalesce(sum(body_bytes), 0) FROM families WHERE app_id = \(appId)::uuid))::int
            """, on: connection)
    }

    /// Reads the `RETURNING revision, created_at, updated_at` of an insert or update.
    func returnedRecord(_ rows: PostgresRowSequence, body: JSONValue) async throws -> Record {
        for try await (revision, created, updated) in rows.decode((Int, Date, Date).self) {
            return Record(body: body, revision: revision, createdAt: created, updatedAt: updated)
        }
        throw StoreError.notFound("the row vanished during the write")
    }

    /// Locks the app's row: writes that must see the whole app consistently (screens: the home
    /// flag, parents, screen_type numbers) take it first, so they run one after another per app.
    func lockApp(_ appId: String, on connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query(
            "SELECT next_screen_number FROM apps WHERE id = \(appId)::uuid FOR UPDATE", logger: logger)
        for try await n in rows.decode(Int.self) { return n }
        throw StoreError.notFound("no app \(appId)")
    }

    /// The family `id`, share-locked (a family update that would drop a cell style waits for the
    /// transaction); nil when there is none or it no longer reads.
    func loadFamily(_ appId: String, id: String, on connection: PostgresConnection) async throws -> Family? {
        guard let row = try await familyRow(appId, id: id, unlessAt: nil, on: connection), let text = row.text else { return nil }
        if case .found(let family) = SavedScreen.FamilyLookup(stored: try JSONValue.parse(text.readableBytesView)) { return family }
        return nil
    }

    /// The family `id`'s row version (`revision:xmin`), share-locked, and its text unless it is
    /// at the row version `known` (one query: a family kept typed is neither read nor parsed).
    func familyRow(
        _ appId: String, id: String, unlessAt known: String?, on connection: PostgresConnection
    ) async throws -> (stamp: String, text: ByteBuffer?)? {
        for try await (stamp, text) in try await connection.query(
            """
            SELECT f.stamp, CASE WHEN f.stamp = \(known) THEN NULL ELSE f.body::text END
            FROM (SELECT revision || ':' || xmin::text AS stamp, body FROM families
                  WHERE app_id = \(appId)::uuid AND id = \(id) FOR SHARE) AS f
            """, logger: logger
        ).decode((String, ByteBuffer?).self) { return (stamp, text) }
        return nil
    }
}

extension JSONValue {
    /// The members of an object with `revision` and timestamps removed (what a body stores).
    public func removingBookkeeping() -> JSONValue {
        guard var o = objectValue else { return self }
        for key in ["revision", "created_at", "updated_at"] { o.removeValue(forKey: key) }
        return .object(o)
    }
}
