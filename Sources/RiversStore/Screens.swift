import Foundation
import PostgresNIO
import RiversCore

extension Store: ContentStorage {
    public func withContent<T: Sendable>(
        appId: String, _ work: @escaping @Sendable (any ContentTransaction) async throws -> T
    ) async throws -> T {
        try await withApp(appId) { try await work($0) }
    }

    /// One transaction over the app `appId`, its row locked, with the transaction object every
    /// storage of the app's content and versions works through. It waits for the app's turn in
    /// this process before it takes a connection (`AppTurns`: one app's queue of writes holds
    /// one pooled connection, not all of them).
    /// A write in it that changes what a kept API token may do (`TrustChange`) clears the token
    /// cache once the transaction has ended.
    func withApp<T: Sendable>(
        _ appId: String, _ work: @escaping @Sendable (PostgresContentTransaction) async throws -> T
    ) async throws -> T {
        let trust = TrustChange()
        defer { if trust.happened { tokens.clear() } }
        return try await appTurns.run(appId) {
            try await client.transaction(logger: logger) { connection in
                let number = try await lockApp(appId, on: connection)
                return try await work(PostgresContentTransaction(store: self, connection: connection, appId: appId, nextScreenNumber: number, trust: trust))
            }
        }
    }

    public func withScreens<T: Sendable>(
        appId: String, _ work: @escaping @Sendable (any ScreenTransaction) async throws -> T
    ) async throws -> T {
        try await withContent(appId: appId) { try await work($0) }
    }

    public func withFamilies<T: Sendable>(
        appId: String, _ work: @escaping @Sendable (any FamilyTransaction) async throws -> T
    ) async throws -> T {
        try await withContent(appId: appId) { try await work($0) }
    }

    public func withPlugins<T: Sendable>(
        appId: String, _ work: @escaping @Sendable (any PluginTransaction) async throws -> T
    ) async throws -> T {
        try await withContent(appId: appId) { try await work($0) }
    }
}

/// The content of one app in one PostgreSQL transaction (the app's row locked by
/// `Store.withContent`): SQL only, its screens here, its families and layouts in
/// FamiliesAndLayouts.swift, its plugins in Plugins.swift, what an import needs in Versions.swift.
/// Besides the SQL, it keeps the process's typed screens
/// (`SavedScreenCache`) in step: the current screen comes from there when its row version is the
/// one kept (this process made or last saved it), and a written screen is kept under the row
/// version PostgreSQL gives it, so the next write reads no stored text.
final class PostgresContentTransaction: ContentTransaction {
    let store: Store
    let connection: PostgresConnection
    let appId: String
    let nextScreenNumber: Int
    var logger: Logger { store.logger }

    /// The stamp of the app's plugins, read with the registry.
    private var pluginStamp = ""
    /// Marked by a write that changes a grant: the token cache is cleared when the transaction ends.
    let trust: TrustChange
    /// The current screen's family as kept with it, when that row version is still the current one.
    private var knownFamily: (id: String, stamp: String, family: Family)?
    /// The family the write read last, with its row version: kept with the written screen.
    private var lastFamily: (id: String, lookup: SavedScreen.FamilyLookup, stamp: String?)?

    init(store: Store, connection: PostgresConnection, appId: String, nextScreenNumber: Int, trust: TrustChange) {
        self.store = store
        self.connection = connection
        self.appId = appId
        self.nextScreenNumber = nextScreenNumber
        self.trust = trust
    }

    func registry() async throws -> PluginRegistry {
        let (registry, stamp) = try await store.registryAndStamp(appId: appId, on: connection)
        pluginStamp = stamp
        return registry
    }

    func screenParents() async throws -> [String: String?] {
        try await store.screenParents(appId: appId, on: connection)
    }

    func layout(id: String) async throws -> JSONValue? {
        try await store.fetchIfPresent(.layouts, appId: appId, id: id, on: connection, lock: .share)?.body
    }

    func currentScreen(id: String, registry: PluginRegistry) async throws -> (screen: Screen, revision: Int) {
        guard UUIDText.normalize(id) != nil else { throw StoreError.notFound("no screen \(id) in this app") }
        var row: (revision: Int, stamp: String, familyStamp: String?)?
        for try await (revision, stamp, familyStamp) in try await connection.query(
            """
            SELECT s.revision, s.revision || ':' || s.xmin::text, f.revision || ':' || f.xmin::text
            FROM screens s LEFT JOIN families f ON f.app_id = s.app_id AND f.id = s.family
            WHERE s.app_id = \(appId)::uuid AND s.id = \(id)::uuid
            FOR UPDATE OF s
            """, logger: logger
        ).decode((Int, String, String?).self) {
            row = (revision, stamp, familyStamp)
        }
        guard let row else { throw StoreError.notFound("no screen \(id) in this app") }
        if let kept = store.savedScreens.screen(for: key(id), screen: row.stamp, plugins: pluginStamp) {
            // Its family as kept only if that row version is still the current one.
            if let stamp = kept.familyStamp, stamp == row.familyStamp, case .found(let family) = kept.value.family {
                knownFamily = (family.id, stamp, family)
            }
            return (kept.value.screen, row.revision)
        }
        guard let text = try await screenText(id: id) else { throw StoreError.notFound("no screen \(id) in this app") }
        // Its family is not read here: the write reads the family it names then.
        return (try Store.readStoredScreen(text.body, registry: registry).screen, row.revision)
    }

    /// The family and its row version (`revision:xmin`), share-locked. The family kept with the
    /// current screen is used as it is when it is that row version (its text is then neither read
    /// nor parsed): one query, which returns the text only when the row version is another.
    func family(id: String) async throws -> SavedScreen.FamilyLookup {
        let known = knownFamily.flatMap { $0.id == id ? $0 : nil }
        let row = try await store.familyRow(appId, id: id, unlessAt: known?.stamp, on: connection)
        let found: (lookup: SavedScreen.FamilyLookup, stamp: String?)
        if let row {
            if let text = row.text {
                found = (SavedScreen.FamilyLookup(stored: try JSONValue.parse(text.readableBytesView)), row.stamp)
            } else if let known {
                found = (.found(known.family), row.stamp)
            } else {
                found = (.missing, nil)
            }
        } else {
            found = (.missing, nil)
        }
        lastFamily = (id, found.lookup, found.stamp)
        return found.lookup
    }

    func lockScreen(id: String) async throws -> (revision: Int, home: Bool)? {
        guard UUIDText.normalize(id) != nil else { return nil }
        for try await (revision, home) in try await connection.query(
            "SELECT revision, home FROM screens WHERE app_id = \(appId)::uuid AND id = \(id)::uuid FOR UPDATE", logger: logger
        ).decode((Int, Bool).self) {
            return (revision, home)
        }
        return nil
    }

    func screenText(id: String) async throws -> RecordText? {
        try await store.fetchText(.screens, appId: appId, id: id, on: connection, lock: .none)
    }

    func insert(_ screen: Screen, options: Screen.ReadOptions) async throws -> RecordText {
        try await connection.query(
            "UPDATE apps SET next_screen_number = next_screen_number + 1 WHERE id = \(appId)::uuid", logger: logger)
        return try await write(screen, options: options, """
            INSERT INTO screens (app_id, id, screen_type, home, parent, family, targets, body)
            VALUES (\(appId)::uuid, \(screen.id)::uuid, \(screen.screenType), \(screen.home), \(screen.parent)::uuid,
                    \(screen.family), \(screen.targets.sorted())::uuid[], \(Store.storedBody(screen))::jsonb)
            RETURNING \(unescaped: Self.returning)
            """)
    }

    func update(_ screen: Screen, options: Screen.ReadOptions) async throws -> RecordText {
        try await write(screen, options: options, """
            UPDATE screens SET home = \(screen.home), parent = \(screen.parent)::uuid, family = \(screen.family),
                targets = \(screen.targets.sorted())::uuid[], body = \(Store.storedBody(screen))::jsonb,
                revision = revision + 1, updated_at = now()
            WHERE app_id = \(appId)::uuid AND id = \(screen.id)::uuid
            RETURNING \(unescaped: Self.returning)
            """)
    }

    /// What a write of a screen returns: the text a GET answers, its bookkeeping, its row version.
    private static let returning = "\(DocumentTable.screens.selectBody), revision, created_at, updated_at, revision || ':' || xmin::text"

    /// Runs the write `statement` of `screen` and keeps the screen under the row version it made.
    private func write(_ screen: Screen, options: Screen.ReadOptions, _ statement: PostgresQuery) async throws -> RecordText {
        for try await (text, revision, created, updated, stamp) in try await connection.query(statement, logger: logger)
            .decode((ByteBuffer, Int, Date, Date, String).self) {
            let written = RecordText(body: text, revision: revision, createdAt: created, updatedAt: updated)
            keep(screen, options: options, stamp: stamp, textBytes: text.readableBytes)
            return written
        }
        throw StoreError.notFound("the row vanished during the write")
    }

    /// Keeps a written screen typed under the row version just made (should the transaction not
    /// commit, no row will ever have that version, and the entry is never used), with the family
    /// it was checked against.
    private func keep(_ screen: Screen, options: Screen.ReadOptions, stamp: String, textBytes: Int) {
        let family = lastFamily.flatMap { $0.id == screen.family ? $0 : nil }
        store.savedScreens.keep(
            SavedScreen(screen: screen, family: family?.lookup ?? .missing, options: options), for: key(screen.id),
            at: SavedScreenCache.Stamp(screen: stamp, family: family?.stamp, plugins: pluginStamp), textBytes: textBytes)
    }

    private func key(_ id: String) -> SavedScreenCache.Key { SavedScreenCache.Key(appId: appId, screenId: id.lowercased()) }

    func clearHome(except id: String) async throws {
        try await store.clearHome(appId: appId, except: id, on: connection)
    }

    func linksTo(screen id: String) async throws -> [ResourceUse] {
        let rows = try await connection.query(
            """
            SELECT id::text, body->>'name', coalesce(parent = \(id)::uuid, false) FROM screens
            WHERE app_id = \(appId)::uuid AND id <> \(id)::uuid AND (parent = \(id)::uuid OR \(id)::uuid = ANY (targets))
            ORDER BY position
            """, logger: logger)
        var users: [ResourceUse] = []
        for try await (userId, name, isChild) in rows.decode((String, String, Bool).self) {
            users.append(ResourceUse(kind: .screen, id: userId, name: name, via: .link(isChild ? "parent" : "target")))
        }
        return users
    }

    func delete(screen id: String) async throws {
        try await connection.query("DELETE FROM screens WHERE app_id = \(appId)::uuid AND id = \(id)::uuid", logger: logger)
    }

    func makeFirstScreenHome() async throws {
        try await connection.query(
            """
            UPDATE screens SET home = true, revision = revision + 1, updated_at = now()
            WHERE app_id = \(appId)::uuid
              AND position = (SELECT min(position) FROM screens WHERE app_id = \(appId)::uuid)
            """, logger: logger)
    }

    func storedBytes(screen id: String) async throws -> (screen: Int, app: Int) {
        (try await largestStoredBytes(screens: [id]), try await store.appBytes(appId: appId, on: connection))
    }
}

extension Store {
    /// The body as stored: everything but `home`, which lives in its own column, written from
    /// the typed screen.
    static func storedBody(_ screen: Screen) -> String {
        String(decoding: screen.storedForm(), as: UTF8.self)
    }

    /// Every screen of the app with its parent.
    func screenParents(appId: String, on connection: PostgresConnection) async throws -> [String: String?] {
        let rows = try await connection.query(
            "SELECT id::text, parent::text FROM screens WHERE app_id = \(appId)::uuid", logger: logger)
        var parents: [String: String?] = [:]
        for try await (id, parent) in rows.decode((String, String?).self) { parents[id] = parent }
        return parents
    }

    /// Takes the home flag from every other screen; their representation changes, so their
    /// revisions move on too.
    func clearHome(appId: String, except id: String, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            UPDATE screens SET home = false, revision = revision + 1, updated_at = now()
            WHERE app_id = \(appId)::uuid AND home AND id <> \(id)::uuid
            """, logger: logger)
    }
}
