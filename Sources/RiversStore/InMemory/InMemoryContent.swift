import Foundation
import NIOConcurrencyHelpers
import NIOCore
import RiversCore

/// Apps' content kept in memory: screens, families, layouts, plugins, published versions,
/// channels and preview links. A `ContentStorage` (and so a `ScreenStorage`, `FamilyStorage` and
/// `PluginStorage`) and a `VersionStorage`, and the repositories that read them
/// (`RecordTextRepository`, `PluginRepository`, `FamilyRepository`, `SavedScreenRepository` for
/// previews, `VersionRepository` and `PreviewLinkRepository` in InMemoryVersions.swift), without
/// PostgreSQL: the fast tier runs the services of RiversServices and the content, publishing and
/// preview-link routes on it.
///
/// Each app is kept in a value; a transaction works on a copy of it and commits only when its
/// work returns (and runs again on a fresh copy should another transaction of the app have
/// committed meanwhile, as a serializable PostgreSQL transaction would be retried), so a failed
/// write leaves nothing. What it does not model: row locks (nothing waits), and the stored sizes
/// are those of the text as written (PostgreSQL's jsonb text, which the caps measure there, is a
/// little longer). `ContentStorageTests` runs one script of writes on it and on `Store` and
/// requires the same outcome at every step.
public final class InMemoryContent: ContentStorage, VersionStorage, ReleaseStorage, WebhookStorage, RecordTextRepository, PluginRepository,
    FamilyRepository, SavedScreenRepository, ReleaseRepository, WebhookRepository
{
    /// A screen, family or layout as kept: typed, with its bookkeeping and its stored text.
    struct Row<Value: Sendable>: Sendable {
        var value: Value
        var revision: Int
        var createdAt: Date
        var updatedAt: Date
        /// The stored text: a screen's stored form (what a GET answers, less `home`), a family's
        /// or layout's JSON.
        var stored: [UInt8]

        init(_ value: Value, stored: [UInt8]) {
            self.value = value
            self.stored = stored
            revision = 1
            createdAt = Date()
            updatedAt = createdAt
        }

        /// The next revision of the row, holding `value`.
        mutating func change(to value: Value, stored: [UInt8]) {
            self.value = value
            self.stored = stored
            revision += 1
            updatedAt = Date()
        }

        /// The row as its table's text (the stored text, with `extra` members spliced in before
        /// its closing brace: a screen's `home`, which PostgreSQL keeps in a column).
        func text(adding extra: String = "") -> RecordText {
            var bytes = stored
            if !extra.isEmpty {
                bytes.removeLast()
                bytes += Array(",\(extra)}".utf8)
            }
            return RecordText(body: ByteBuffer(bytes: bytes), revision: revision, createdAt: createdAt, updatedAt: updatedAt)
        }

        var record: Record { Record(body: (try? JSONValue.parse(stored)) ?? .null, revision: revision, createdAt: createdAt, updatedAt: updatedAt) }
    }

    /// A plugin as kept: every version's manifest, oldest first.
    struct PluginRow: Sendable {
        var identifier: String
        var currentVersion: String
        var versions: [(version: String, manifest: PluginManifest, createdAt: Date)]
        var revision = 1
        var createdAt = Date()
        var updatedAt = Date()

        var stored: StoredPlugin? {
            guard let current = versions.first(where: { $0.version == currentVersion }) else { return nil }
            return StoredPlugin(
                identifier: identifier, currentVersion: currentVersion, manifest: current.manifest,
                versions: versions.map { StoredPlugin.Version(manifestVersion: $0.version, createdAt: $0.createdAt) },
                revision: revision, createdAt: createdAt, updatedAt: updatedAt)
        }
    }

    struct AppState: Sendable {
        var nextScreenNumber = 1
        /// Each in the app's order (PostgreSQL's `position`: the order of creation).
        var screens: [Row<Screen>] = []
        var families: [Row<Family>] = []
        var layouts: [Row<LayoutTemplate>] = []
        var plugins: [PluginRow] = []
        /// The entries an import adds to the audit log for the whole of it.
        var audit: [String] = []
        /// Published versions, oldest first.
        var versions: [PublishedVersion] = []
        /// The app as the API shows it (what `InMemoryCallers` made it with), and whether it is
        /// archived (its preview links open nothing, its public URL is gone).
        var app: App
        var slug: String { app.slug }
        var archived = false
        /// Preview links, oldest first, each with its secret's hash.
        var previewLinks: [(link: PreviewLink, hash: String)] = []
        /// Channels by name.
        var channels: [String: Channel] = [:]
        /// Every move of a channel, oldest first.
        var channelMoves: [(channel: String, move: ChannelMove, cause: ChannelMoveCause, withNewVersion: Bool)] = []
        var rules = ReleaseRuleSet(rules: [], revision: 0, updatedAt: nil)
        /// Schedules in the order they were made.
        var schedules: [Schedule] = []
        /// Webhooks in the order they were made, with their secrets.
        /// Each webhook with its secret and the one before a rotation, as stored.
        var webhooks: [(hook: Webhook, secret: String, previousSecret: String?)] = []
        /// Deliveries, oldest first: pings, and those of every move of a channel (as PostgreSQL's
        /// trigger makes them; `app.archived` is `InMemoryApps`' and makes none here).
        var deliveries: [WebhookDelivery] = []
        /// Moves on with every commit: a transaction that started from an older one runs again.
        var commits = 0

        /// The draft as a publish reads it. The document is written from the typed screens
        /// (`RiversDocument.bytes`), as PostgreSQL's is from the screens' kept fragments.
        var draft: Draft {
            let registry = self.registry
            let screens = self.screens.map(\.value)
            var families: [String: Family] = [:]
            for row in self.families { families[row.value.id] = row.value }
            return Draft(
                screens: screens, families: families, registry: registry,
                document: { RiversDocument.bytes(screens: screens, screenPlugins: registry.screenPluginInfo) })
        }

        /// Version `number`, if the app has it.
        func version(_ number: Int) -> PublishedVersion? { versions.first { $0.number == number } }

        /// The version production points at.
        var production: PublishedVersion? { channels[ChannelName.production].flatMap { version($0.version) } }

        /// The plugins with all their versions, as screens and layouts are read with them.
        var registry: PluginRegistry {
            // (As `Store.registryAndStamp`: a plugin whose current version has no manifest is left out.)
            PluginRegistry(Dictionary(uniqueKeysWithValues: plugins.map { row in
                (row.identifier, PluginRegistry.Plugin(
                    currentVersion: row.currentVersion, versions: Dictionary(row.versions.map { ($0.version, $0.manifest) }) { _, last in last }))
            }).filter { $0.value.versions[$0.value.currentVersion] != nil })
        }
    }

    let apps = NIOLockedValueBox<[String: AppState]>([:])
    /// Transactions committed, and those run again after another committed first.
    private let counters = NIOLockedValueBox((committed: 0, retried: 0))

    public init() {}

    // MARK: Setting up an app (what other repositories write on PostgreSQL)

    /// Adds an app with no screens (its slug its id unless said).
    public func addApp(id: String, slug: String? = nil) {
        addApp(App(id: id, slug: slug ?? id, name: "App", createdAt: Date()))
    }

    /// Adds `app` with no screens (as `InMemoryCallers.addApp` made it).
    public func addApp(_ app: App) {
        apps.withLockedValue { $0[app.id] = AppState(app: app) }
    }

    /// Archives the app (as `AppService.archive` does on PostgreSQL): its public URL is gone and
    /// its preview links open nothing.
    public func archiveApp(id: String) {
        apps.withLockedValue { apps in
            apps[id]?.archived = true
            // A commit of the app: a transaction that began before it runs again, on the archived app.
            apps[id]?.commits += 1
        }
    }

    // MARK: Reading back (for tests)

    /// The app's screens in its order, typed, with their revisions.
    public func screens(appId: String) -> [(screen: Screen, revision: Int)] {
        apps.withLockedValue { $0[appId]?.screens.map { ($0.value, $0.revision) } ?? [] }
    }

    /// The app's families in its order, typed, with their revisions.
    public func families(appId: String) -> [(family: Family, revision: Int)] {
        apps.withLockedValue { $0[appId]?.families.map { ($0.value, $0.revision) } ?? [] }
    }

    /// The app's next `screen_type` number.
    public func nextScreenNumber(appId: String) -> Int? {
        apps.withLockedValue { $0[appId]?.nextScreenNumber }
    }

    /// Transactions committed, and transactions run again because another of their app committed first.
    public var transactions: (committed: Int, retried: Int) { counters.withLockedValue { $0 } }

    // MARK: RecordTextRepository (what GETs answer)

    public func recordText(_ table: DocumentTable, appId: String, id: String) async throws -> RecordText {
        let text = apps.withLockedValue { apps in apps[appId].flatMap { Self.texts(table, of: $0).first { $0.id == Self.key(table, id) }?.text } }
        guard let text else { throw StoreError.notFound("no \(table.noun) \(id) in this app") }
        return text
    }

    /// A page in the app's order, sized as `Store.listText` sizes it.
    public func listText(_ table: DocumentTable, appId: String, limit: Int, offset: Int) async throws -> TextPage {
        let limit = max(1, min(limit, Store.maxPageSize)), offset = max(0, offset)
        let texts = apps.withLockedValue { apps in apps[appId].map { Self.texts(table, of: $0) } ?? [] }
        return TextPage(items: texts.dropFirst(offset).prefix(limit).map(\.text), total: texts.count, limit: limit, offset: offset)
    }

    /// A table's rows as ids and texts, in the app's order.
    private static func texts(_ table: DocumentTable, of app: AppState) -> [(id: String, text: RecordText)] {
        switch table {
        case .screens: return app.screens.map { ($0.value.id.lowercased(), Transaction.text($0)) }
        case .families: return app.families.map { ($0.value.id, $0.text()) }
        case .layouts: return app.layouts.map { ($0.value.id, $0.text()) }
        }
    }

    /// How a table compares ids: screens' are UUIDs (any case), the others' exact.
    static func key(_ table: DocumentTable, _ id: String) -> String {
        table == .screens ? (UUIDText.normalize(id) ?? "") : id
    }

    // MARK: PluginRepository (the plugins as read)

    func state(_ appId: String) -> AppState? { apps.withLockedValue { $0[appId] } }

    public func registry(appId: String) async throws -> PluginRegistry {
        state(appId)?.registry ?? PluginRegistry()
    }

    public func listPlugins(appId: String, limit: Int, offset: Int) async throws -> Page<StoredPlugin> {
        let plugins = state(appId)?.plugins.compactMap(\.stored) ?? []
        let items = plugins.dropFirst(max(0, offset)).prefix(max(1, min(limit, Store.maxPageSize)))
        return Page(items: Array(items), total: plugins.count, limit: limit, offset: offset)
    }

    public func plugin(appId: String, identifier: String) async throws -> StoredPlugin {
        guard let plugin = state(appId)?.plugins.first(where: { $0.identifier == identifier })?.stored else {
            throw StoreError.notFound("no plugin \(identifier) in this app")
        }
        return plugin
    }

    public func pluginManifest(appId: String, identifier: String, version: String?) async throws -> PluginManifest {
        guard let plugin = try await registry(appId: appId).plugins[identifier] else { throw StoreError.notFound("no plugin \(identifier) in this app") }
        guard let manifest = plugin.versions[version ?? plugin.currentVersion] else {
            throw StoreError.notFound("plugin \(identifier) has no version \(version ?? "")")
        }
        return manifest
    }

    // MARK: FamilyRepository and SavedScreenRepository (what previews read)

    public func family(appId: String, id: String) async throws -> Record {
        guard let family = state(appId)?.families.first(where: { $0.value.id == id }) else { throw StoreError.notFound("no family \(id) in this app") }
        return family.record
    }

    /// A saved screen with its family and the options it reads with (the app's, and its own type).
    public func savedScreen(appId: String, id: String) async throws -> SavedScreen {
        guard let app = state(appId), let key = UUIDText.normalize(id), let row = app.screens.first(where: { $0.value.id.lowercased() == key }) else {
            throw StoreError.notFound("no screen \(id) in this app")
        }
        var options = app.registry.readOptions
        options.pluginScreenTypes.insert(row.value.type)
        let family = app.families.first { $0.value.id == row.value.family }.map { SavedScreen.FamilyLookup.found($0.value) } ?? .missing
        return SavedScreen(screen: row.value, family: family, options: options)
    }

    /// The app's audit entries for whole changes (an import's), oldest first: `kind resource action: summary`.
    public func audit(appId: String) -> [String] { state(appId)?.audit ?? [] }

    /// The app's published versions, oldest first.
    public func versions(appId: String) -> [PublishedVersion] { state(appId)?.versions ?? [] }

    /// The version a channel points at.
    public func channel(appId: String, name: String) -> Int? { state(appId)?.channels[name]?.version }

    // MARK: ReleaseRepository

    public func channels(appId: String) async throws -> [Channel] {
        // Production first, then by name.
        (state(appId)?.channels.values.map { $0 } ?? []).sorted {
            let first = ($0.name == ChannelName.production, $1.name == ChannelName.production)
            return first.0 != first.1 ? first.0 : $0.name < $1.name
        }
    }

    public func channel(appId: String, name: String, historyLimit: Int) async throws -> (channel: Channel, history: [ChannelMove]) {
        guard let app = state(appId), let channel = app.channels[name] else { throw StoreError.notFound("no channel \(String(name.prefix(40))) in this app") }
        return (channel, Array(app.channelMoves.filter { $0.channel == name }.map(\.move).reversed().prefix(historyLimit)))
    }

    public func releaseRules(appId: String) async throws -> ReleaseRuleSet {
        state(appId)?.rules ?? ReleaseRuleSet(rules: [], revision: 0, updatedAt: nil)
    }

    /// Pending ones first (soonest first), then the rest newest first, as PostgreSQL orders them.
    public func schedules(appId: String, limit: Int, offset: Int) async throws -> (schedules: [Schedule], total: Int) {
        let all = state(appId)?.schedules ?? []
        func pending(_ s: Schedule) -> Bool { s.firedAt == nil && s.cancelledAt == nil }
        let sorted = all.filter(pending).sorted { ($0.dueAt, $0.id) < ($1.dueAt, $1.id) }
            + all.filter { !pending($0) }.sorted { $0.dueAt != $1.dueAt ? $0.dueAt > $1.dueAt : $0.id < $1.id }
        return (Array(sorted.dropFirst(offset).prefix(limit)), all.count)
    }

    // MARK: WebhookRepository

    public func webhooks(appId: String) async throws -> [Webhook] { state(appId)?.webhooks.map(\.hook) ?? [] }

    public func webhook(appId: String, id: String) async throws -> Webhook {
        guard let hook = state(appId)?.webhooks.first(where: { $0.hook.id == UUIDText.normalize(id) })?.hook else {
            throw StoreError.notFound("no webhook \(String(id.prefix(40))) in this app")
        }
        return hook
    }

    public func webhookDeliveries(appId: String, webhookId: String, limit: Int, offset: Int) async throws -> (deliveries: [WebhookDelivery], total: Int) {
        let hook = try await webhook(appId: appId, id: webhookId)
        let mine = (state(appId)?.deliveries ?? []).filter { $0.webhookId == hook.id }.reversed()
        return (Array(mine.dropFirst(offset).prefix(limit)), mine.count)
    }

    /// (No attempts are made in memory: the deliverer is PostgreSQL's.)
    public func webhookDelivery(appId: String, webhookId: String, id: String) async throws -> (delivery: WebhookDelivery, attempts: [WebhookAttempt]) {
        guard let delivery = state(appId)?.deliveries.first(where: { $0.webhookId == UUIDText.normalize(webhookId) && $0.id == id }) else {
            throw StoreError.notFound("no delivery \(String(id.prefix(40))) of this webhook")
        }
        return (delivery, [])
    }

    /// A webhook's secrets as stored (the current one, then the one before a rotation), for tests
    /// of how they are kept; nil for no such webhook.
    public func storedWebhookSecrets(appId: String, id: String) -> [String]? {
        guard let entry = state(appId)?.webhooks.first(where: { $0.hook.id == UUIDText.normalize(id) }) else { return nil }
        return [entry.secret] + (entry.previousSecret.map { [$0] } ?? [])
    }

    /// Every move of the app's channels, oldest first: the channel, the move, what moved it.
    public func channelMoves(appId: String) -> [(channel: String, move: ChannelMove, cause: ChannelMoveCause, withNewVersion: Bool)] {
        state(appId)?.channelMoves ?? []
    }

    // MARK: ContentStorage and VersionStorage

    public func withVersions<T: Sendable>(
        appId: String, _ work: @escaping @Sendable (any VersionTransaction) async throws -> T
    ) async throws -> T {
        try await transaction(appId) { try await work($0) }
    }

    public func withContent<T: Sendable>(
        appId: String, _ work: @escaping @Sendable (any ContentTransaction) async throws -> T
    ) async throws -> T {
        try await transaction(appId) { try await work($0) }
    }

    public func withScreens<T: Sendable>(
        appId: String, _ work: @escaping @Sendable (any ScreenTransaction) async throws -> T
    ) async throws -> T {
        try await transaction(appId) { try await work($0) }
    }

    public func withFamilies<T: Sendable>(
        appId: String, _ work: @escaping @Sendable (any FamilyTransaction) async throws -> T
    ) async throws -> T {
        try await transaction(appId) { try await work($0) }
    }

    public func withPlugins<T: Sendable>(
        appId: String, _ work: @escaping @Sendable (any PluginTransaction) async throws -> T
    ) async throws -> T {
        try await transaction(appId) { try await work($0) }
    }

    public func withWebhooks<T: Sendable>(
        appId: String, _ work: @escaping @Sendable (any WebhookTransaction) async throws -> T
    ) async throws -> T {
        try await transaction(appId) { try await work($0) }
    }

    public func withReleases<T: Sendable>(
        appId: String, _ work: @escaping @Sendable (any ReleaseTransaction) async throws -> T
    ) async throws -> T {
        try await transaction(appId) { try await work($0) }
    }

    /// The earliest due schedule of every app; the transaction runs only if it is still pending
    /// then (another took it otherwise, and the next due one is looked for).
    public func withDueSchedule<T: Sendable>(
        _ work: @escaping @Sendable (any ReleaseTransaction, Schedule) async throws -> T
    ) async throws -> T? {
        while true {
            let now = Date()
            let due = apps.withLockedValue { apps in
                apps.flatMap { app in
                    app.value.schedules.filter { $0.firedAt == nil && $0.cancelledAt == nil && $0.dueAt <= now }.map { (appId: app.key, schedule: $0) }
                }.min { ($0.schedule.dueAt, $0.schedule.id) < ($1.schedule.dueAt, $1.schedule.id) }
            }
            guard let due else { return nil }
            let result: T? = try await transaction(due.appId) { tx in
                guard let schedule = try await tx.schedule(id: due.schedule.id), schedule.firedAt == nil, schedule.cancelledAt == nil else { return nil }
                return try await work(tx, schedule)
            }
            if let result { return result }
        }
    }

    private func transaction<T: Sendable>(_ appId: String, _ work: (Transaction) async throws -> T) async throws -> T {
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
    final class Transaction: ContentTransaction, VersionTransaction, WebhookTransaction {
        let appId: String
        var state: AppState

        init(appId: String, state: AppState) {
            self.appId = appId
            self.state = state
        }

        func registry() async throws -> PluginRegistry { state.registry }

        // MARK: Plugins

        private func pluginIndex(_ identifier: String) -> Int? { state.plugins.firstIndex { $0.identifier == identifier } }

        func plugin(_ identifier: String) async throws -> StoredPlugin? { pluginIndex(identifier).flatMap { state.plugins[$0].stored } }

        func pluginCount() async throws -> Int { state.plugins.count }

        func versionCount(_ identifier: String) async throws -> Int { pluginIndex(identifier).map { state.plugins[$0].versions.count } ?? 0 }

        func storedManifest(_ identifier: String, version: String) async throws -> JSONValue? {
            pluginIndex(identifier).flatMap { state.plugins[$0].versions.first { $0.version == version }?.manifest.raw }
        }

        /// Manifests as their compact JSON text (PostgreSQL's adds a space after each `,` and `:`).
        func storedManifestBytes(_ identifier: String, version: String) async throws -> (manifest: Int, all: Int) {
            let versions = state.plugins.flatMap { plugin in plugin.versions.map { (plugin.identifier, $0.version, $0.manifest.raw.serialized().count) } }
            return (versions.first { $0.0 == identifier && $0.1 == version }?.2 ?? 0, versions.reduce(0) { $0 + $1.2 })
        }

        func insertPlugin(_ identifier: String, currentVersion version: String) async throws {
            state.plugins.append(PluginRow(identifier: identifier, currentVersion: version, versions: []))
        }

        func insertVersion(_ manifest: PluginManifest) async throws {
            guard let i = pluginIndex(manifest.identifier) else { throw StoreError.notFound("no plugin \(manifest.identifier) in this app") }
            state.plugins[i].versions.append((manifest.manifestVersion, manifest, Date()))
        }

        func replaceVersion(_ manifest: PluginManifest) async throws {
            guard let i = pluginIndex(manifest.identifier),
                let v = state.plugins[i].versions.firstIndex(where: { $0.version == manifest.manifestVersion })
            else { throw StoreError.notFound("no plugin \(manifest.identifier) in this app") }
            state.plugins[i].versions[v].manifest = manifest
        }

        func makeCurrent(_ identifier: String, version: String) async throws {
            guard let i = pluginIndex(identifier) else { return }
            state.plugins[i].currentVersion = version
            state.plugins[i].revision += 1
            state.plugins[i].updatedAt = Date()
        }

        func delete(plugin identifier: String) async throws {
            state.plugins.removeAll { $0.identifier == identifier }
        }

        func screens() async throws -> [Screen] { state.screens.map(\.value) }

        func layouts(usingComponentType componentType: String) async throws -> [ResourceUse] {
            state.layouts.filter { Self.uses(componentType, $0.value.uiComponents) }.map {
                ResourceUse(kind: .layout, id: $0.value.id, name: $0.value.name, via: .ways(["component"]))
            }
        }

        /// Whether a component, or a child at any depth, is of the type.
        static func uses(_ componentType: String, _ components: [Component]) -> Bool {
            components.contains { $0.componentType == componentType || uses(componentType, $0.uiComponents) }
        }

        // MARK: Screens

        var nextScreenNumber: Int { state.nextScreenNumber }

        func screenParents() async throws -> [String: String?] {
            var parents: [String: String?] = [:]
            for row in state.screens { parents[row.value.id] = .some(row.value.parent) }
            return parents
        }

        func layout(id: String) async throws -> JSONValue? {
            state.layouts.first { $0.value.id == id }.map { $0.value.json }
        }

        private func index(_ id: String) -> Int? {
            guard let id = UUIDText.normalize(id) else { return nil }
            return state.screens.firstIndex { $0.value.id.lowercased() == id }
        }

        func currentScreen(id: String, registry: PluginRegistry) async throws -> (screen: Screen, revision: Int) {
            guard let i = index(id) else { throw StoreError.notFound("no screen \(id) in this app") }
            return (state.screens[i].value, state.screens[i].revision)
        }

        func family(id: String) async throws -> SavedScreen.FamilyLookup {
            state.families.first { $0.value.id == id }.map { .found($0.value) } ?? .missing
        }

        func lockScreen(id: String) async throws -> (revision: Int, home: Bool)? {
            index(id).map { (state.screens[$0].revision, state.screens[$0].value.home) }
        }

        func screenText(id: String) async throws -> RecordText? {
            index(id).map { Self.text(state.screens[$0]) }
        }

        /// What a GET answers: the stored form with `home` (PostgreSQL merges its column in).
        static func text(_ row: Row<Screen>) -> RecordText {
            row.text(adding: #""home":\#(row.value.home)"#)
        }

        func insert(_ screen: Screen, options: Screen.ReadOptions) async throws -> RecordText {
            let row = Row(screen, stored: screen.storedForm())
            state.screens.append(row)
            state.nextScreenNumber += 1
            return Self.text(row)
        }

        func update(_ screen: Screen, options: Screen.ReadOptions) async throws -> RecordText {
            guard let i = index(screen.id) else { throw StoreError.notFound("the row vanished during the write") }
            state.screens[i].change(to: screen, stored: screen.storedForm())
            return Self.text(state.screens[i])
        }

        func clearHome(except id: String) async throws {
            for i in state.screens.indices where state.screens[i].value.home && state.screens[i].value.id != id {
                var screen = state.screens[i].value
                screen.home = false
                state.screens[i].change(to: screen, stored: state.screens[i].stored)
            }
        }

        func linksTo(screen id: String) async throws -> [ResourceUse] {
            let id = id.lowercased()
            return state.screens.compactMap { row in
                let screen = row.value
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
            guard var screen = state.screens.first?.value else { return }
            screen.home = true
            state.screens[0].change(to: screen, stored: state.screens[0].stored)
        }

        func storedBytes(screen id: String) async throws -> (screen: Int, app: Int) {
            (index(id).map { state.screens[$0].stored.count } ?? 0, try await storedAppBytes())
        }

        // MARK: Families and layouts

        /// A family's or layout's row as stored, and where it is.
        private func row(_ table: DocumentTable, _ id: String) -> (index: Int, record: Record)? {
            switch table {
            case .families: return state.families.firstIndex { $0.value.id == id }.map { ($0, state.families[$0].record) }
            case .layouts: return state.layouts.firstIndex { $0.value.id == id }.map { ($0, state.layouts[$0].record) }
            case .screens: return nil
            }
        }

        func stored(_ table: DocumentTable, id: String) async throws -> Record? { row(table, id)?.record }

        func exists(_ table: DocumentTable, id: String) async throws -> Bool { row(table, id) != nil }

        func count(_ table: DocumentTable) async throws -> Int {
            table == .families ? state.families.count : table == .layouts ? state.layouts.count : state.screens.count
        }

        func delete(_ table: DocumentTable, id: String) async throws {
            guard let i = row(table, id)?.index else { return }
            if table == .families { state.families.remove(at: i) } else { state.layouts.remove(at: i) }
        }

        func insert(_ family: Family) async throws -> Record {
            state.families.append(Row(family, stored: family.json.serialized()))
            return state.families[state.families.count - 1].record
        }

        func update(_ family: Family) async throws -> Record {
            try Self.change(&state.families, family.id, to: family, stored: family.json.serialized())
        }

        func insert(_ layout: LayoutTemplate) async throws -> Record {
            state.layouts.append(Row(layout, stored: layout.json.serialized()))
            return state.layouts[state.layouts.count - 1].record
        }

        func update(_ layout: LayoutTemplate) async throws -> Record {
            try Self.change(&state.layouts, layout.id, to: layout, stored: layout.json.serialized())
        }

        /// The row `id` of `rows` at its next revision, holding `value`.
        private static func change<T>(_ rows: inout [Row<T>], _ id: String, to value: T, stored: [UInt8]) throws -> Record where T: Identified {
            guard let i = rows.firstIndex(where: { $0.value.id == id }) else { throw StoreError.notFound("the row vanished during the write") }
            rows[i].change(to: value, stored: stored)
            return rows[i].record
        }

        /// Screens first, then layouts, each in the app's order, as the SQL orders them.
        func users(ofFamily id: String) async throws -> [FamilyUser] {
            state.screens.filter { $0.value.family == id }.map {
                FamilyUser(kind: .screen, id: $0.value.id, name: $0.value.name, cellStyles: Self.cellStyles($0.value.uiComponents))
            } + state.layouts.filter { $0.value.family == id }.map {
                FamilyUser(kind: .layout, id: $0.value.id, name: $0.value.name, cellStyles: Self.cellStyles($0.value.uiComponents))
            }
        }

        /// The cell styles components name, their children's included.
        static func cellStyles(_ components: [Component]) -> Set<String> {
            components.reduce(into: Set<String>()) { styles, c in
                styles.formUnion(c.cellStyles)
                styles.formUnion(cellStyles(c.uiComponents))
            }
        }

        func familyToCheck(id: String) async throws -> Family? {
            state.families.first { $0.value.id == id }?.value
        }

        func storedAppBytes() async throws -> Int {
            state.screens.reduce(0) { $0 + $1.stored.count } + state.families.reduce(0) { $0 + $1.stored.count }
        }

        func storedLayoutBytes(id: String) async throws -> (layout: Int, all: Int) {
            (state.layouts.first { $0.value.id == id }?.stored.count ?? 0, state.layouts.reduce(0) { $0 + $1.stored.count })
        }

        // MARK: Versions and channels

        func draft() async throws -> Draft { state.draft }

        func version(number: Int) async throws -> PublishedVersion? { state.versions.first { $0.number == number } }

        func sha256(ofVersion number: Int) async throws -> String? { state.versions.first { $0.number == number }?.sha256 }

        func newestVersion() async throws -> (number: Int, sha256: String)? { state.versions.last.map { ($0.number, $0.sha256) } }

        func insert(_ version: PublishedVersion) async throws -> Date {
            state.versions.append(version)
            return version.createdAt
        }

        func slug() async throws -> String { state.slug }

        func channel(_ name: String) async throws -> Channel? { state.channels[name] }

        func channelNames() async throws -> Set<String> { Set(state.channels.keys) }

        func versionExists(_ number: Int) async throws -> Bool { state.versions.contains { $0.number == number } }

        func latestMove(of name: String) async throws -> ChannelMove? {
            state.channelMoves.last { $0.channel == name && $0.move.previousVersion != $0.move.version }?.move
        }

        func writeChannel(
            _ name: String, to version: Int, previous: Int?, movedBy: String, note: String, cause: ChannelMoveCause, withNewVersion: Bool
        ) async throws -> Channel {
            let now = Date()
            var channel = state.channels[name] ?? Channel(name: name, version: version, revision: 0, createdAt: now, updatedAt: now)
            channel.version = version
            channel.revision += 1
            channel.updatedAt = now
            state.channels[name] = channel
            let move = ChannelMove(id: state.channelMoves.count + 1, version: version, previousVersion: previous, movedBy: movedBy, note: note, at: now)
            state.channelMoves.append((name, move, cause, withNewVersion))
            // What PostgreSQL's trigger on a channel's move enqueues (`webhook_channel_move`).
            let event = switch cause {
            case .publish: "version.published"
            case .rollback: "channel.rolled_back"
            case .schedule: "schedule.fired"
            case .promote: "channel.promoted"
            }
            let slug = state.slug
            enqueue(event, at: now, data: [
                "app": ["id": .string(appId), "slug": .string(slug)], "channel": .string(name), "version": .number(Double(version)),
                "previous_version": previous.map { .number(Double($0)) } ?? .null, "note": .string(note), "by": .string(movedBy),
                "path": .string(name == ChannelName.production ? "/rivers/\(slug)/rivers.json" : "/rivers/\(slug)/channels/\(name)/rivers.json"),
                "purge_tags": [.string("app-\(appId)-channel-\(name)"), .string("app-\(appId)-rules")],
            ])
            return channel
        }

        /// One delivery, due now, for each enabled webhook of the app that takes `event`; logged
        /// as failed, not sent, for a webhook with `Limits.maxPendingDeliveriesPerWebhook`
        /// waiting (PostgreSQL's `webhook_enqueue`).
        func enqueue(_ event: String, at now: Date, data: JSONValue) {
            for (hook, _, _) in state.webhooks where hook.enabled && hook.events.contains(event) {
                let payload = JSONValue.object(["type": .string(event), "timestamp": .string(Timestamp.format(now)), "data": data]).serializedString()
                let full = state.deliveries.filter { $0.webhookId == hook.id && $0.state == "pending" }.count >= Limits.maxPendingDeliveriesPerWebhook
                state.deliveries.append(WebhookDelivery(
                    id: "msg_" + UUIDText.random().replacingOccurrences(of: "-", with: ""), webhookId: hook.id, event: event, payload: payload,
                    state: full ? "failed" : "pending", attempts: 0, nextAttemptAt: now, lastStatus: nil,
                    lastError: full ? Self.notSentFull : "", createdAt: now, deliveredAt: nil))
            }
        }

        static let notSentFull = "not sent: 1000 deliveries of this webhook were waiting; redeliver it once they are through"

        /// (Its history stays, as PostgreSQL's `channel_moves` rows do.)
        func deleteChannel(_ name: String) async throws { state.channels[name] = nil }

        func releaseRules() async throws -> ReleaseRuleSet { state.rules }

        func writeReleaseRules(_ rules: [ReleaseRule]) async throws -> ReleaseRuleSet {
            state.rules = ReleaseRuleSet(rules: rules, revision: state.rules.revision + 1, updatedAt: Date())
            return state.rules
        }

        func pendingSchedules(channel name: String?) async throws -> Int {
            state.schedules.filter { $0.firedAt == nil && $0.cancelledAt == nil && (name == nil || $0.channel == name) }.count
        }

        func insertSchedule(channel: String, version: Int, dueAt: Date, createdBy: String) async throws -> Schedule {
            let schedule = Schedule(
                id: UUIDText.random(), channel: channel, version: version, dueAt: dueAt, createdBy: createdBy, createdAt: Date(), late: false)
            state.schedules.append(schedule)
            return schedule
        }

        func dropScheduleHistory(keeping: Int) async throws -> Int {
            let finished = state.schedules.filter { $0.firedAt != nil || $0.cancelledAt != nil }
                .sorted { $0.dueAt != $1.dueAt ? $0.dueAt > $1.dueAt : $0.id < $1.id }
            let gone = Set(finished.dropFirst(keeping).map(\.id))
            state.schedules.removeAll { gone.contains($0.id) }
            return gone.count
        }

        func schedule(id: String) async throws -> Schedule? { state.schedules.first { $0.id == id } }

        func markCancelled(schedule id: String) async throws -> Schedule {
            try changeSchedule(id) { $0.cancelledAt = Date() }
        }

        func markFired(schedule id: String, lateAfterSeconds: Int) async throws -> Schedule {
            try changeSchedule(id) {
                let now = Date()
                $0.firedAt = now
                $0.late = $0.dueAt < now.addingTimeInterval(-Double(lateAfterSeconds))
            }
        }

        private func changeSchedule(_ id: String, _ change: (inout Schedule) -> Void) throws -> Schedule {
            guard let i = state.schedules.firstIndex(where: { $0.id == id }) else { throw StoreError.notFound("no schedule \(id) in this app") }
            change(&state.schedules[i])
            return state.schedules[i]
        }

        // MARK: Webhooks

        private func webhookIndex(_ id: String) -> Int? {
            guard let id = UUIDText.normalize(id) else { return nil }
            return state.webhooks.firstIndex { $0.hook.id == id }
        }

        func webhook(id: String) async throws -> Webhook? { webhookIndex(id).map { state.webhooks[$0].hook } }

        func webhookCount() async throws -> Int { state.webhooks.count }

        func insertWebhook(url: String, description: String, events: [String], secret: String, createdBy: String) async throws -> Webhook {
            let now = Date()
            let hook = Webhook(
                id: UUIDText.random(), url: url, description: description, events: events, enabled: true, revision: 1, createdBy: createdBy,
                createdAt: now, updatedAt: now, previousSecretUntil: nil)
            state.webhooks.append((hook, secret, nil))
            return hook
        }

        func updateWebhook(_ hook: Webhook) async throws -> Webhook {
            guard let i = webhookIndex(hook.id) else { throw StoreError.notFound("no webhook \(hook.id) in this app") }
            var changed = hook
            changed.revision = state.webhooks[i].hook.revision + 1
            changed.updatedAt = Date()
            state.webhooks[i].hook = changed
            return changed
        }

        func deleteWebhook(id: String) async throws -> Bool {
            guard let i = webhookIndex(id) else { return false }
            let removed = state.webhooks.remove(at: i).hook.id
            state.deliveries.removeAll { $0.webhookId == removed }
            return true
        }

        func rotateSecret(id: String, to secret: String, overlapSeconds: Int) async throws -> Webhook? {
            guard let i = webhookIndex(id) else { return nil }
            state.webhooks[i].previousSecret = state.webhooks[i].secret
            state.webhooks[i].secret = secret
            state.webhooks[i].hook.previousSecretUntil = Date().addingTimeInterval(Double(overlapSeconds))
            state.webhooks[i].hook.revision += 1
            state.webhooks[i].hook.updatedAt = Date()
            return state.webhooks[i].hook
        }

        func pendingDeliveries(webhookId: String, besides: String?) async throws -> Int {
            state.deliveries.filter { $0.webhookId == webhookId && $0.state == "pending" && $0.id != besides }.count
        }

        func insertPing(webhookId: String) async throws -> WebhookDelivery {
            let now = Date()
            let payload = JSONValue.object([
                "type": "ping", "timestamp": .string(Timestamp.format(now)),
                "data": ["app": ["id": .string(appId), "slug": .string(state.slug)]],
            ]).serializedString()
            let delivery = WebhookDelivery(
                id: "msg_" + UUIDText.random().replacingOccurrences(of: "-", with: ""), webhookId: webhookId, event: "ping", payload: payload,
                state: "pending", attempts: 0, nextAttemptAt: now, lastStatus: nil, lastError: "", createdAt: now, deliveredAt: nil)
            state.deliveries.append(delivery)
            return delivery
        }

        func redeliver(webhookId: String, id: String) async throws -> WebhookDelivery? {
            guard let webhookId = UUIDText.normalize(webhookId), let i = state.deliveries.firstIndex(where: { $0.webhookId == webhookId && $0.id == id })
            else { return nil }
            let now = Date()
            state.deliveries[i].state = "pending"
            state.deliveries[i].nextAttemptAt = now
            state.deliveries[i].createdAt = now
            state.deliveries[i].deliveredAt = nil
            return state.deliveries[i]
        }

        // MARK: What an import needs

        func deleteAllScreens() async throws { state.screens.removeAll() }

        func screenTypes() async throws -> Set<String> { Set(state.screens.map(\.value.screenType)) }

        func hasHome() async throws -> Bool { state.screens.contains { $0.value.home } }

        func insertImported(_ screen: Screen, parent: String?) async throws -> Record {
            // The parent as its column holds it; the stored form as the document gives it.
            var kept = screen
            kept.parent = parent
            let row = Row(kept, stored: screen.storedForm())
            state.screens.append(row)
            return Record(body: screen.json, revision: row.revision, createdAt: row.createdAt, updatedAt: row.updatedAt)
        }

        /// (Not a new revision: PostgreSQL's statement leaves it as it is.)
        func setParent(of screen: String, to parent: String) async throws {
            guard let i = index(screen) else { return }
            state.screens[i].value.parent = parent
        }

        func setNextScreenNumber(_ number: Int) async throws { state.nextScreenNumber = number }

        func largestStoredBytes(screens ids: [String]) async throws -> Int {
            ids.compactMap { index($0).map { state.screens[$0].stored.count } }.max() ?? 0
        }

        func audit(kind: String, resourceId: String, action: String, summary: String) async throws {
            state.audit.append("\(kind) \(resourceId) \(action): \(summary)")
        }
    }
}

/// A kept value with an id (families and layouts).
protocol Identified { var id: String { get } }
extension Family: Identified {}
extension LayoutTemplate: Identified {}
