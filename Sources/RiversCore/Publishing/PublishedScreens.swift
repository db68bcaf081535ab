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
        public var screen: Screen
        /// The screen's object in rivers.json, once a document was made.
        public var fragment: [UInt8]?
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
    public mutating func read(_ rows: [Row], options: Screen.ReadOptions) async -> Result<[Screen], ValidationFailure> {
        var texts: [[UInt8]] = []
        var fresh: [Int] = []
        for (i, row) in rows.enumerated() where entries[row.key] == nil {
            guard let text = row.text else {
                return .failure(ValidationFailure([FieldError("/screens/\(i)", "the stored screen was not read")]))
            }
            texts.append(text)
            fresh.append(i)
        }
        let decoded = await StoredScreens.read(texts, options: options)
        var kept: [String: Entry] = [:]
        kept.reserveCapacity(rows.count)
        for (n, i) in fresh.enumerated() {
            switch decoded[n] {
            case .success(let screen):
                var types: Set<String> = []
                screen.uiComponents.walk(at: "") { component, _ in types.insert(component.componentType) }
                kept[rows[i].key] = Entry(screen: screen, fragment: nil, componentTypes: types, textBytes: texts[n].count)
            case .failure(let failure):
                return .failure(failure)
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

    /// rivers.json of the screens under `keys` (as `read` returned them), writing the bytes of
    /// those that have none yet (on all cores when there are many) and keeping them.
    public mutating func document(keys: [String], screenPlugins: [String: ScreenPluginInfo]) async -> [UInt8] {
        let missing = keys.filter { entries[$0] != nil && entries[$0]!.fragment == nil }
        let screens = missing.map { entries[$0]!.screen }
        let chunks = min(max(1, missing.count / 16), 8)
        var written = [[UInt8]](repeating: [], count: missing.count)
        if chunks == 1 {
            for (i, screen) in screens.enumerated() { written[i] = RiversDocument.fragment(screen, screenPlugins: screenPlugins) }
        } else {
            written = await withTaskGroup(of: [(Int, [UInt8])].self) { group in
                for chunk in 0..<chunks {
                    group.addTask {
                        stride(from: chunk, to: screens.count, by: chunks).map { ($0, RiversDocument.fragment(screens[$0], screenPlugins: screenPlugins)) }
                    }
                }
                var all = [[UInt8]](repeating: [], count: screens.count)
                for await part in group {
                    for (i, bytes) in part { all[i] = bytes }
                }
                return all
            }
        }
        for (i, key) in missing.enumerated() { entries[key]!.fragment = written[i] }
        return RiversDocument.bytes(fragments: keys.compactMap { entries[$0]?.fragment })
    }
}
