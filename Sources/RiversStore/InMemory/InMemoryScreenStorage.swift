import Foundation
import NIOConcurrencyHelpers
import NIOCore
import RiversCore

/// Screens kept in memory: a `ScreenStorage` without PostgreSQL, for the fast tier's tests of the
/// screen use cases (`ScreenService`). Each app's screens, families, layouts and plugins are kept
/// in a value; a transaction works on a copy of it and commits only when its work returns (and
/// runs again on a fresh copy should another transaction of the app have committed meanwhile, as
/// a serializable PostgreSQL transaction would be retried), so a failed write leaves nothing.
/// What it does not model: row locks (nothing waits), and the stored sizes are those of the
/// stored form as written (PostgreSQL's jsonb text, which the caps measure there, is a little
/// longer).
public final class InMemoryScreenStorage: ScreenStorage, ScreenTextRepository {
    /// A screen as kept: typed, with its bookkeeping.
    struct Row: Sendable {
        var screen: Screen
        var revision: Int
        var createdAt: Date
        var updatedAt: Date
        /// The stored form (`Screen.storedForm()`): what a GET answers, less `home`.
        var stored: [UInt8]
    }

    struct AppState: Sendable {
        var nextScreenNumber = 1
        /// In the app's order (PostgreSQL's `position`: the order of creation).
        var screens: [Row] = []
        var families: [String: (family: Family, bytes: Int)] = [:]
        var layouts: [String: JSONValue] = [:]
        var registry = PluginRegistry()
        /// Moves on with every commit: a transaction that started from an older one runs again.
        var commits = 0
    }

    private let apps = NIOLockedValueBox<[String: AppState]>([:])
    /// Transactions committed, and those run again after another committed first.
    private let counters = NIOLockedValueBox((committed: 0, retried: 0))

    public init() {}

    // MARK: Setting up an app (what other repositories write on PostgreSQL)

    /// Adds an app with no screens.
    public func addApp(id: String) {
        apps.withLockedValue { $0[id] = AppState() }
    }

    /// Adds or replaces a family, as its body (it must read).
    public func setFamily(appId: String, _ body: JSONValue) throws {
        let problems = Problems()
        guard let family = Family.read(body, problems: problems) else { throw StoreError.invalid(problems.errors) }
        let bytes = body.serialized().count
        try change(appId) { $0.families[family.id] = (family, bytes) }
    }

    /// Adds or replaces a layout, as its body.
    public func setLayout(appId: String, id: String, _ body: JSONValue) throws {
        try change(appId) { $0.layouts[id] = body }
    }

    /// Sets the app's plugins.
    public func setRegistry(appId: String, _ registry: PluginRegistry) throws {
        try change(appId) { $0.registry = registry }
    }

    private func change(_ appId: String, _ body: (inout AppState) -> Void) throws {
        try apps.withLockedValue { apps in
            guard apps[appId] != nil else { throw StoreError.notFound("no app \(appId)") }
            body(&apps[appId]!)
            apps[appId]!.commits += 1
        }
    }

    // MARK: Reading back (for tests)

    /// The app's screens in its order, typed, with their revisions.
    public func screens(appId: String) -> [(screen: Screen, revision: Int)] {
        apps.withLockedValue { $0[appId]?.screens.map { ($0.screen, $0.revision) } ?? [] }
    }

    /// The app's next `screen_type` number.
    public func nextScreenNumber(appId: String) -> Int? {
        apps.withLockedValue { $0[appId]?.nextScreenNumber }
    }

    /// Transactions committed, and transactions run again because another of their app committed first.
    public var transactions: (committed: Int, retried: Int) { counters.withLockedValue { $0 } }

    // MARK: ScreenTextRepository (what GETs answer)

    public func screenText(appId: String, id: String) async throws -> RecordText {
        let row = apps.withLockedValue { apps in
            UUIDText.normalize(id).flatMap { id in apps[appId]?.screens.first { $0.screen.id.lowercased() == id } }
        }
        guard let row else { throw StoreError.notFound("no screen \(id) in this app") }
        return Transaction.text(row)
    }

    /// A page in the app's order, sized as `Store.listText` sizes it.
    public func screenPage(appId: String, limit: Int, offset: Int) async throws -> TextPage {
        let limit = max(1, min(limit, Store.maxPageSize)), offset = max(0, offset)
        let rows = apps.withLockedValue { $0[appId]?.screens ?? [] }
        let items = rows.dropFirst(offset).prefix(limit).map(Transaction.text)
        return TextPage(items: Array(items), total: rows.count, limit: limit, offset: offset)
    }

    // MARK: ScreenStorage

    public func withScreens<T: Sendable>(
        appId: String, _ work: @escaping @Sendable (any ScreenTransaction) async throws -> T
    ) async throws -> T {
        while true {
            guard let start = apps.withLockedValue({ $0[appId] }) else { throw StoreError.notFound("no app \(appId)") }
            let tx = Transaction(appId: appId, state: start)
            let result = try await work(tx)
            let committed: Bool = apps.withLockedValue { apps in
                guard apps[appId]?.commits == start.commits else { return false }
                var state = tx.state
                state.commits += 1
                apps[appId] = state
                return true
            }
            counters.withLockedValue { committed ? ($0.committed += 1) : ($0.retried += 1) }
            if committed { return result }
        }
    }

    /// One transaction: a copy of the app, changed in place.
    final class Transaction: ScreenTransaction {
        let appId: String
        var state: AppState

        init(appId: String, state: AppState) {
            self.appId = appId
            self.state = state
        }

        var nextScreenNumber: Int { state.nextScreenNumber }

        func registry() async throws -> PluginRegistry { state.registry }

        func screenParents() async throws -> [String: String?] {
            var parents: [String: String?] = [:]
            for row in state.screens { parents[row.screen.id] = .some(row.screen.parent) }
            return parents
        }

        func layout(id: String) async throws -> JSONValue? { state.layouts[id] }

        private func index(_ id: String) -> Int? {
            guard let id = UUIDText.normalize(id) else { return nil }
            return state.screens.firstIndex { $0.screen.id.lowercased() == id }
        }

        func currentScreen(id: String, registry: PluginRegistry) async throws -> (screen: Screen, revision: Int) {
            guard let i = index(id) else { throw StoreError.notFound("no screen \(id) in this app") }
            return (state.screens[i].screen, state.screens[i].revision)
        }

        func family(id: String) async throws -> SavedScreen.FamilyLookup {
            state.families[id].map { .found($0.family) } ?? .missing
        }

        func lockScreen(id: String) async throws -> (revision: Int, home: Bool)? {
            index(id).map { (state.screens[$0].revision, state.screens[$0].screen.home) }
        }

        func screenText(id: String) async throws -> RecordText? {
            index(id).map { Self.text(state.screens[$0]) }
        }

        /// What a GET answers: the stored form with `home` (PostgreSQL merges its column in).
        static func text(_ row: Row) -> RecordText {
            var bytes = row.stored
            // The stored form is an object with at least an id: `{...}` gets `,"home":…` before its brace.
            bytes.removeLast()
            bytes += Array(#","home":\#(row.screen.home)}"#.utf8)
            return RecordText(body: ByteBuffer(bytes: bytes), revision: row.revision, createdAt: row.createdAt, updatedAt: row.updatedAt)
        }

        func insert(_ screen: Screen, options: Screen.ReadOptions) async throws -> RecordText {
            let now = Date()
            let row = Row(screen: screen, revision: 1, createdAt: now, updatedAt: now, stored: screen.storedForm())
            state.screens.append(row)
            state.nextScreenNumber += 1
            return Self.text(row)
        }

        func update(_ screen: Screen, options: Screen.ReadOptions) async throws -> RecordText {
            guard let i = index(screen.id) else { throw StoreError.notFound("the row vanished during the write") }
            state.screens[i].screen = screen
            state.screens[i].stored = screen.storedForm()
            state.screens[i].revision += 1
            state.screens[i].updatedAt = Date()
            return Self.text(state.screens[i])
        }

        func clearHome(except id: String) async throws {
            for i in state.screens.indices where state.screens[i].screen.home && state.screens[i].screen.id != id {
                state.screens[i].screen.home = false
                state.screens[i].revision += 1
                state.screens[i].updatedAt = Date()
            }
        }

        func linksTo(screen id: String) async throws -> [ResourceUse] {
            let id = id.lowercased()
            return state.screens.compactMap { row in
                let screen = row.screen
                guard screen.id != id else { return nil }
                if screen.parent == id { return ResourceUse(kind: .screen, id: screen.id, name: screen.name, via: .link("parent")) }
                if screen.targets.contains(id) { return ResourceUse(kind: .screen, id: screen.id, name: screen.name, via: .link("target")) }
                return nil
            }
        }

        func delete(screen id: String) async throws {
            if let i = index(id) { state.screens.remove(at: i) }
        }

        func makeFirstScreenHome() async throws {
            guard !state.screens.isEmpty else { return }
            state.screens[0].screen.home = true
            state.screens[0].revision += 1
            state.screens[0].updatedAt = Date()
        }

        func storedBytes(screen id: String) async throws -> (screen: Int, app: Int) {
            let screen = index(id).map { state.screens[$0].stored.count } ?? 0
            let app = state.screens.reduce(0) { $0 + $1.stored.count } + state.families.values.reduce(0) { $0 + $1.bytes }
            return (screen, app)
        }
    }
}
