import Foundation
import NIOConcurrencyHelpers
import PostgresNIO
import RiversCore

/// Each app's screens as its last publish (or check) read them, by row version (`PublishedScreens`):
/// a publish reads from the database and parses only the screens changed since, and writes only
/// their bytes. Bounded by an estimate of the memory the parsed screens take, least recently used
/// app first out. Each process keeps its own; a miss only means reading again.
final class PublishedScreensCache: Sendable {
    private let entries: NIOLockedValueBox<LRUCache<String, PublishedScreens>>

    /// A parsed screen takes several times its JSON text (as in `SavedScreenCache`).
    static let weightPerByte = 8

    init(budget: Int = 64 << 20) { entries = NIOLockedValueBox(LRUCache(budget: budget)) }

    /// What is kept for the app, if it was read with the same plugins.
    func screens(appId: String, stamp: String) -> PublishedScreens? {
        entries.withLockedValue { $0.get(appId) }.flatMap { $0.stamp == stamp ? $0 : nil }
    }

    /// Keeps the app's screens; an app that would take more than a quarter of the budget is not
    /// kept (one huge app must not push out everyone else's).
    func keep(_ screens: PublishedScreens, appId: String) {
        let weight = screens.textBytes * Self.weightPerByte + 1
        entries.withLockedValue { entries in
            guard weight <= entries.budget / 4 else { entries.remove(appId); return }
            entries.insert(appId, screens, cost: weight)
        }
    }
}

extension Store {
    /// Everything of an app the document is made from, screens in display order.
    public struct AppContent: Sendable {
        public var screens: [Screen]
        public var families: [String: Family]
        public var registry: PluginRegistry
        /// The screens as read, by row version: the document is written from them.
        var published: PublishedScreens
        var keys: [String]
    }

    func content(appId: String, on connection: PostgresConnection) async throws -> AppContent {
        var families: [String: Family] = [:]
        for try await body in try await connection.query(
            "SELECT body::text FROM families WHERE app_id = \(appId)::uuid ORDER BY position", logger: logger
        ).decode(String.self) {
            if let family = Family.read(try JSONValue.parse(Array(body.utf8)), problems: Problems()) { families[family.id] = family }
        }
        let (registry, stamp) = try await registryAndStamp(appId: appId, on: connection)
        var published = publishedScreens.screens(appId: appId, stamp: stamp) ?? PublishedScreens(stamp: stamp)
        // A row version's key changes with every write of the row (`xmin`: the transaction that
        // wrote it; an id and a revision alone come back when a screen is removed and made again).
        // Only the rows not kept are read whole.
        var rows: [PublishedScreens.Row] = []
        var types: Set<String> = []
        var componentTypes: Set<String> = []
        for try await (key, body, type, used) in try await connection.query(
            """
            SELECT s.key,
                   CASE WHEN s.kept THEN NULL ELSE (s.body || jsonb_build_object('home', s.home))::text END,
                   CASE WHEN s.kept THEN NULL ELSE s.body->>'type' END,
                   CASE WHEN s.kept THEN NULL ELSE ARRAY(SELECT jsonb_path_query(s.body, '$.**.component_type') #>> '{}') END
            FROM (SELECT k.key, k.key = ANY(\(published.keys)) AS kept, k.body, k.home, k.position
                  FROM (SELECT id::text || ':' || revision || ':' || xmin::text AS key, body, home, position
                        FROM screens WHERE app_id = \(appId)::uuid) AS k) AS s
            ORDER BY s.position
            """, logger: logger
        ).decode((String, ByteBuffer?, String?, [String]?).self) {
            // The text's bytes as they came (no String between them and the parser).
            rows.append(PublishedScreens.Row(key: key, text: body.map { Array($0.readableBytesView) }))
            if let type { types.insert(type) }
            if let used { componentTypes.formUnion(used) }
        }
        for row in rows where row.text == nil {
            guard let entry = published.entries[row.key] else { continue }
            types.insert(entry.screen.type)
            componentTypes.formUnion(entry.componentTypes)
        }
        // Stored screens were valid when written. Their types are read as they are (a plugin may be
        // gone since); the publish check says which ones no longer have one.
        var options = registry.readOptions
        options.pluginScreenTypes.formUnion(types)
        options.navigationTypes = nil
        options.hookPlugins = nil
        var known = options.catalog.types
        for t in componentTypes where known[t] == nil {
            known[t] = ComponentType(id: t, name: t, axis: .vertical, needsDataSource: false, holdsChildren: false, description: "unregistered")
        }
        options.catalog = ComponentCatalog(Array(known.values))
        let keys = rows.map(\.key)
        switch await published.read(consume rows, options: options, screenPlugins: registry.screenPluginInfo) {
        case .success(let screens):
            publishedScreens.keep(published, appId: appId)
            return AppContent(screens: screens, families: families, registry: registry, published: published, keys: keys)
        case .failure(let failure):
            throw StoreError.invalid(failure.errors)
        }
    }

    /// The document of `content`: its screens' bytes, written when they were read (now or by an
    /// earlier read, and kept since).
    func makeDocument(_ content: AppContent) -> [UInt8] {
        content.published.document(keys: content.keys)
    }

    /// The same, as its screens' bytes (kept for the next read): what is served is written from
    /// them with no copy of the whole.
    func documentFragments(_ content: AppContent) -> DocumentFragments {
        content.published.fragments(keys: content.keys)
    }
}
