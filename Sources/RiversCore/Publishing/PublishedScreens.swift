/// An app's screens as its last publish read and wrote them, each under the key of the stored
/// row version it came from (issue 26). A publish then reads and writes again only the screens
/// changed since; the others are reused, typed and as their bytes in rivers.json. Pure: the store
/// keeps one per app, says which row versions are current, and reads only the texts of the rest.
///
/// A row version's key must change with every write of the row (the store uses its id, revision
/// and PostgreSQL's `xmin`), and everything else a read or a screen's bytes depend on is the
/// app's plugins: `stamp` names them, and another stamp starts afresh.
public struct PublishedScreens: Sendable {
    public struct Entry: Sendable {
        /// The screen as the publish check reads it: without its `extra` members (see `read`).
        public var screen: Screen
        /// The screen's object in rivers.json, written when it was read.
        public var fragment: [UInt8]
        /// Every component type the screen uses, at any depth (what the read options must know).
        public var componentTypes: Set<String>
        /// Bytes of stored text it was read from (for the cache's budget).
        public var textBytes: Int
    }

    /// A stored screen as a publish reads it: its row version's key, and its text (with `home`)
    /// unless its key is among `keys` (then it is not read from the database at all).
    public struct Row: Sendable {
        public var key: String
        public var text: [UInt8]?

        public init(key: String, text: [UInt8]?) {
            self.key = key
            self.text = text
        }
    }

    public let stamp: String
    public private(set) var entries: [String: Entry] = [:]

    public init(stamp: String) { self.stamp = stamp }

    /// The keys whose texts need not be read.
    public var keys: [String] { Array(entries.keys) }

    /// Bytes of stored text the entries were read from.
    public var textBytes: Int { entries.values.reduce(0) { $0 + $1.textBytes } }

    /// The screens of `rows`, in order: the cached ones as they were, the others read from their
    /// text (on all cores) with `options`. Afterwards the entries are exactly those of `rows`.
    /// A row with neither a text nor an entry, or a text that no longer reads, is a failure.
    ///
    /// Each screen read is written to its rivers.json bytes at once (with `screenPlugins`, which
    /// the stamp names), and kept and returned without its `extra` members: free-form values
    /// imported as they were, which only the bytes need and which can be most of a screen's size
    /// (the check reads none of them). So the parsed trees of a screen live only while it is read.
    /// The rows' texts are handed over (`consume`) and let go one by one as they are read.
    public mutating func read(
        _ rows: consuming [Row], options: Screen.ReadOptions, screenPlugins: [String: ScreenPluginInfo]
    ) async -> Result<[Screen], ValidationFailure> {
        var texts: [[UInt8]] = []
        var fresh: [Int] = []
        for i in rows.indices where entries[rows[i].key] == nil {
            guard let text = rows[i].text else {
                return .failure(ValidationFailure([FieldError("/screens/\(i)", "the stored screen was not read")]))
            }
            rows[i].text = nil
            texts.append(text)
            fresh.append(i)
        }
        let decoded = await StoredScreens.read(consume texts, options: options) { screen, text in
            var types: Set<String> = []
            screen.uiComponents.walk(at: "") { component, _ in types.insert(component.componentType) }
            return Entry(
                screen: screen.droppingExtras(), fragment: RiversDocument.fragment(screen, screenPlugins: screenPlugins),
                componentTypes: types, textBytes: text.count)
        }
        var kept: [String: Entry] = [:]
        kept.reserveCapacity(rows.count)
        for (n, i) in fresh.enumerated() {
            switch decoded[n] {
            case .success(let entry): kept[rows[i].key] = entry
            case .failure(let failure): return .failure(failure)
            }
        }
        var screens: [Screen] = []
        screens.reserveCapacity(rows.count)
        for row in rows {
            let entry = kept[row.key] ?? entries[row.key]!
            kept[row.key] = entry
            screens.append(entry.screen)
        }
        entries = kept
        return .success(screens)
    }

    /// rivers.json of the screens under `keys` (as `read` returned them).
    public func document(keys: [String]) -> [UInt8] { fragments(keys: keys).joined }

    /// The same document as the bytes of its screens, not joined.
    public func fragments(keys: [String]) -> DocumentFragments {
        DocumentFragments(keys.compactMap { entries[$0]?.fragment })
    }
}
