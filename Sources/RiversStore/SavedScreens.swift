import Foundation
import NIOConcurrencyHelpers
import PostgresNIO
import RiversCore

/// A saved screen as its preview reads it: parsed with its app's plugins, with its family.
public struct SavedScreen: Sendable {
    public enum FamilyLookup: Sendable {
        case found(Family)
        /// The app has no family by the screen's `family`.
        case missing
        /// The stored family no longer reads (the rules became stricter).
        case unreadable

        /// A family as stored (nil: there is none).
        public init(stored body: JSONValue?) {
            guard let body else { self = .missing; return }
            self = Family.read(body, problems: Problems()).map { .found($0) } ?? .unreadable
        }
    }

    public var screen: Screen
    public var family: FamilyLookup
    /// What the screen was read with: the app's component catalog and screen plugins.
    public var options: Screen.ReadOptions
}

/// Saved screens parsed for previews, each kept with the revisions it was read at: a preview
/// asks only for the current revisions (one small query) and parses again only after a change
/// to the screen, its family or the app's plugins. Bounded by an estimate of the memory the
/// parsed screens take, least recently used first out.
final class SavedScreenCache: Sendable {
    struct Key: Hashable {
        var appId: String
        var screenId: String
    }
    /// The row versions read: revision and `xmin` (which changes with every write of a row, also
    /// when a screen or family is removed and made again with its id at revision 1).
    struct Stamp: Equatable {
        var screen: String
        var family: String?
        var plugins: String
    }
    private struct Entry {
        var stamp: Stamp
        var value: SavedScreen
    }
    private let entries: NIOLockedValueBox<LRUCache<Key, Entry>>

    /// A parsed screen takes several times its JSON text; 8 × is a generous estimate.
    static let weightPerByte = 8

    init(budget: Int = 32 << 20) { entries = NIOLockedValueBox(LRUCache(budget: budget)) }

    var budget: Int { entries.withLockedValue { $0.budget } }

    func value(for key: Key, at stamp: Stamp) -> SavedScreen? {
        entries.withLockedValue { entries in
            guard let entry = entries.get(key), entry.stamp == stamp else { return nil }
            return entry.value
        }
    }

    /// The screen kept at row version `screen` with the plugins `plugins`, whatever its family's
    /// row version (a write reads the family it names itself), with the family's it was kept at.
    func screen(for key: Key, screen: String, plugins: String) -> (value: SavedScreen, familyStamp: String?)? {
        entries.withLockedValue { entries in
            guard let entry = entries.get(key), entry.stamp.screen == screen, entry.stamp.plugins == plugins else { return nil }
            return (entry.value, entry.stamp.family)
        }
    }

    /// Keeps a parsed screen; one that would take more than a quarter of the budget is not kept
    /// (a few huge screens must not push out everyone else's).
    func keep(_ value: SavedScreen, for key: Key, at stamp: Stamp, textBytes: Int) {
        let weight = textBytes * Self.weightPerByte
        entries.withLockedValue { entries in
            guard weight <= entries.budget / 4 else { return }
            entries.insert(key, Entry(stamp: stamp, value: value), cost: weight)
        }
    }

    var count: Int { entries.withLockedValue { $0.count } }
}

extension Store {
    /// A stored screen's text read as it is (it was valid when saved), with the options it was
    /// read with: the app's, and its own type, which reads even when its plugin is gone.
    static func readStoredScreen(_ text: ByteBuffer, registry: PluginRegistry) throws -> (screen: Screen, options: Screen.ReadOptions) {
        var options = registry.readOptions
        // Straight into the typed screen when the fast path vouches for it, its type as known.
        if let screen = StoredScreenDecoder.decode(Array(text.readableBytesView), options: options, anyType: true) {
            options.pluginScreenTypes.insert(screen.type)
            return (screen, options)
        }
        let body = try JSONValue.parse(text.readableBytesView)
        if let type = body["type"]?.stringValue { options.pluginScreenTypes.insert(type) }
        let problems = Problems()
        guard let screen = Screen.read(body, options: options, problems: problems) else { throw StoreError.invalid(problems.errors) }
        return (screen, options)
    }

    /// A saved screen parsed for its preview; parsed again only when it, its family or the app's
    /// plugins changed since the last time.
    public func savedScreen(appId: String, id: String) async throws -> SavedScreen {
        guard UUIDText.normalize(id) != nil else { throw StoreError.notFound("no screen \(id) in this app") }
        let logger = self.logger
        return try await client.reading { connection in
            var current: SavedScreenCache.Stamp?
            for try await (screen, family, plugins) in try await connection.query(
                """
                SELECT s.revision || ':' || s.xmin::text, f.revision || ':' || f.xmin::text, \(unescaped: Self.pluginStamp)
                FROM (SELECT \(appId)::uuid AS app_id) AS given
                JOIN screens s ON s.app_id = given.app_id
                LEFT JOIN families f ON f.app_id = given.app_id AND f.id = s.body->>'family'
                WHERE s.id = \(id)::uuid
                """, logger: logger
            ).decode((String, String?, String).self) {
                current = SavedScreenCache.Stamp(screen: screen, family: family, plugins: plugins)
            }
            guard let current else { throw StoreError.notFound("no screen \(id) in this app") }
            let key = SavedScreenCache.Key(appId: appId, screenId: id.lowercased())
            if let known = self.savedScreens.value(for: key, at: current) { return known }

            guard let text = try await self.fetchText(.screens, appId: appId, id: id, on: connection, lock: .none) else {
                throw StoreError.notFound("no screen \(id) in this app")
            }
            let (screen, options) = try Self.readStoredScreen(text.body, registry: try await self.registry(appId: appId, on: connection))
            let stored = try await self.fetchText(.families, appId: appId, id: screen.family, on: connection, lock: .none)
            let family = SavedScreen.FamilyLookup(stored: stored.map { (try? JSONValue.parse($0.body.readableBytesView)) ?? .null })
            let familyBytes = stored?.body.readableBytes ?? 0
            let saved = SavedScreen(screen: screen, family: family, options: options)
            // Kept under the revisions asked first: a change in between is seen by the next preview.
            self.savedScreens.keep(saved, for: key, at: current, textBytes: text.body.readableBytes + familyBytes)
            return saved
        }
    }
}
