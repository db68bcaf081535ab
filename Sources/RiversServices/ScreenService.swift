import Foundation
import RiversCore
import RiversStore

/// The use cases of screens: create, change (replace, merge patch, reorder) and remove, each one
/// transaction over a `ScreenStorage`. The rules live here; the storage only reads and writes
/// (`Store` in SQL, `InMemoryContent` for the fast tier's tests).
public struct ScreenService: Sendable {
    let storage: any ScreenStorage

    public init(storage: any ScreenStorage) { self.storage = storage }

    /// Creates a screen. `from_layout` fills the family and components the body leaves out; the
    /// first screen of an app becomes home; `screen_type` is generated from the app's counter.
    /// The answer is what a `GET` gives, with the screen's id.
    public func create(appId: String, body sent: JSONValue) async throws -> (resource: RecordText, id: String) {
        try await storage.withScreens(appId: appId) { tx in
            var body = sent
            // A layout that cannot be used is listed with every other problem of the body (not
            // those of the family and components it would have filled).
            var layoutProblems: [FieldError] = []
            if let layoutId = body["from_layout"], !layoutId.isNull {
                do {
                    body = try await Self.applyingLayout(layoutId, to: body, in: tx)
                } catch StoreError.invalid(let errors) {
                    layoutProblems = errors
                    if var o = body.objectValue { o.removeValue(forKey: "from_layout"); body = .object(o) }
                }
            } else if var o = body.objectValue, o["from_layout"] != nil {
                // `from_layout: null` is no layout, like leaving it out (the document allows null).
                o.removeValue(forKey: "from_layout")
                body = .object(o)
            }
            if let given = body["screen_type"], !given.isNull {
                throw StoreError.invalid([FieldError("/screen_type", "is generated when the screen is created; leave it out")])
            }
            let registry = try await tx.registry()
            let parents = try await tx.screenParents()
            var screen: Screen
            do {
                screen = try await Self.read(.body(body), options: registry.readOptions, registry: registry, parents: parents, in: tx) {
                    registry.fillingComponentStyles(registry.preparingNew($0))
                }
            } catch StoreError.invalid(let errors) where !layoutProblems.isEmpty {
                let filled = ["/family", "/ui_components"]
                throw StoreError.invalid(layoutProblems + errors.filter { e in !filled.contains { e.pointer == $0 || e.pointer.hasPrefix($0 + "/") } })
            }
            if !layoutProblems.isEmpty { throw StoreError.invalid(layoutProblems) }
            screen.screenType = ScreenTypeName.make(name: screen.name, number: tx.nextScreenNumber)
            if parents[screen.id] != nil {
                throw StoreError.conflict("a screen \(screen.id) exists already in this app", usedBy: [])
            }
            try AppCaps.refuseAtCap(parents.count, limit: Limits.maxScreensPerApp, "screens")
            if parents.isEmpty { screen.home = true }
            if screen.home { try await tx.clearHome(except: screen.id) }
            var options = registry.readOptions
            options.pluginScreenTypes.insert(screen.type)
            let written = try await tx.insert(screen, options: options)
            try await Self.checkSizes(screen.id, in: tx)
            return (written, screen.id)
        }
    }

    /// Changes a screen as `edit` asks: replaced by a body, merge-patched, or its components
    /// reordered. The edit is applied to the typed current screen (no JSON is made of it): the
    /// body sent is the only JSON text parsed, and the storage writes its form from the typed
    /// screen (issue 26; `ScreenWriteTests` count them). The answer is what a `GET` gives.
    public func update(appId: String, id: String, precondition: RevisionPrecondition, edit: ScreenEdit) async throws -> RecordText {
        try await storage.withScreens(appId: appId) { tx in
            let registry = try await tx.registry()
            let (current, revision) = try await tx.currentScreen(id: id, registry: registry)
            try precondition.check(revision)
            var options = registry.readOptions
            // A screen keeps reading while its plugin is gone; the check below says so.
            options.pluginScreenTypes.insert(current.type)
            let parents = try await tx.screenParents()
            let source: ScreenSource
            switch edit {
            case .replace(let sent):
                var body = try bodyKeepingId(sent.removingBookkeeping(), id: id, normalize: UUIDText.normalize)
                // The home flag is the app's: a replacing body that leaves it out keeps it as it is.
                if var o = body.objectValue, o["home"] == nil || o["home"]!.isNull {
                    o["home"] = .bool(current.home)
                    body = .object(o)
                }
                source = .body(body)
            case .mergePatch(let patch):
                source = .mergePatch(patch, onto: current)
            case .reorder(let ids):
                var screen = current
                screen.uiComponents = try Self.reordered(current.uiComponents, ids: ids)
                source = .typed(screen)
            }
            var screen = try await Self.read(source, options: options, registry: registry, parents: parents, in: tx) { read in
                var screen = read
                if screen.type != current.type {
                    screen.pluginVersion = nil
                    screen = registry.preparingNew(screen)
                } else if screen.pluginVersion == nil {
                    screen.pluginVersion = current.pluginVersion
                }
                return registry.fillingComponentStyles(screen)
            }
            if !screen.screenType.isEmpty, screen.screenType != current.screenType {
                throw StoreError.invalid([FieldError("/screen_type", "was generated when the screen was created and cannot change (it is \(current.screenType))")])
            }
            screen.screenType = current.screenType
            if current.home, !screen.home {
                throw StoreError.invalid([FieldError("/home", "an app has exactly one home screen: make another screen home instead")])
            }
            // Nothing changed: nothing is written, and the revision stays.
            if screen == current, let text = try await tx.screenText(id: id) { return text }
            if screen.home, !current.home { try await tx.clearHome(except: screen.id) }
            options.pluginScreenTypes.insert(screen.type)
            let written = try await tx.update(screen, options: options)
            try await Self.checkSizes(screen.id, in: tx)
            return written
        }
    }

    /// Removes a screen nothing points at. Removing the home screen makes the first remaining
    /// screen home, so the app keeps exactly one.
    public func delete(appId: String, id: String, precondition: RevisionPrecondition) async throws {
        try await storage.withScreens(appId: appId) { tx in
            guard let current = try await tx.lockScreen(id: id) else { throw StoreError.notFound("no screen \(id) in this app") }
            try precondition.check(current.revision)
            let users = try await tx.linksTo(screen: id)
            if !users.isEmpty {
                throw StoreError.conflict("screen \(id) is the parent or target of \(users.count) other screen(s)", usedBy: users)
            }
            try await tx.delete(screen: id)
            if current.home { try await tx.makeFirstScreenHome() }
        }
    }

    // MARK: Rules

    /// What a write reads its screen from.
    enum ScreenSource {
        /// A whole body (a create, a PUT).
        case body(JSONValue)
        /// A merge patch onto the current screen.
        case mergePatch(JSONValue, onto: Screen)
        /// A screen made typed (components reordered).
        case typed(Screen)

        /// The JSON the screen is read from, for checking a body that does not read.
        var json: JSONValue {
            switch self {
            case .body(let body): return body
            case .mergePatch(let patch, let base): return base.json.mergePatched(with: patch)
            case .typed(let screen): return screen.json
            }
        }
    }

    /// Reads a screen and checks it against the rest of its app (family and cell styles, parent
    /// and targets, plugins, navigations and hooks), reporting every problem of the body at once.
    /// `prepare` turns the screen as read into the screen as it will be stored.
    static func read(
        _ source: ScreenSource, options: Screen.ReadOptions, registry: PluginRegistry, parents: [String: String?],
        in tx: any ScreenTransaction, prepare: (Screen) -> Screen
    ) async throws -> Screen {
        let problems = Problems()
        let screen: Screen?
        switch source {
        case .body(let body): screen = Screen.read(body, options: options, problems: problems).map(prepare)
        case .mergePatch(let patch, let base): screen = Screen.read(mergePatch: patch, onto: base, options: options, problems: problems).map(prepare)
        case .typed(let typed): screen = prepare(typed)
        }
        var errors = problems.errors
        if let screen {
            // The screen as it will be stored, checked typed.
            if !screen.family.isEmpty {
                errors += References.checkCellStyles(screen.uiComponents, family: try await tx.family(id: screen.family).found, familyId: screen.family)
            }
            var known = parents
            known[screen.id] = .some(screen.parent)
            errors += References.checkScreenLinks(screen, parents: known)
            errors += registry.check(screen)
        } else {
            // A body that does not read: its references are checked on it as sent (a patch
            // merged onto the screen's JSON, made for this only), so they are reported with its
            // other problems.
            let body = source.json
            if let familyId = body["family"]?.stringValue, !familyId.isEmpty {
                errors += References.checkCellStyles(json: body["ui_components"], family: try await tx.family(id: familyId).found, familyId: familyId)
            }
            let id = body["id"]?.stringValue.flatMap(UUIDText.normalize) ?? ""
            var known = parents
            known[id] = .some(body["parent"]?.stringValue.flatMap(UUIDText.normalize))
            errors += References.checkScreenLinks(json: body, id: id, parents: known)
        }
        // One problem a place: a malformed value is not also reported as a missing reference.
        var seen: Set<String> = []
        errors = errors.filter { seen.insert($0.pointer).inserted }
        guard let screen, errors.isEmpty else { throw StoreError.invalid(errors) }
        return screen
    }

    /// After a write, in its transaction: the screen and the app within their caps as stored.
    static func checkSizes(_ id: String, in tx: any ScreenTransaction) async throws {
        let bytes = try await tx.storedBytes(screen: id)
        try AppCaps.checkScreenBytes(bytes.screen)
        try AppCaps.checkAppBytes(bytes.app)
    }

    /// `components` in the order of `ids`, which must name each of them exactly once.
    static func reordered(_ components: [Component], ids: [String]) throws -> [Component] {
        var byId: [String: Component] = [:]
        for c in components { byId[c.id] = c }
        var errors: [FieldError] = []
        var seen: Set<String> = []
        for (i, id) in ids.enumerated() {
            if byId[id] == nil { errors.append(FieldError("/component_ids/\(i)", "the screen has no component \(id.prefix(100))")) }
            if !seen.insert(id).inserted { errors.append(FieldError("/component_ids/\(i)", "\(id.prefix(100)) is listed twice")) }
        }
        let missing = byId.keys.filter { !seen.contains($0) }.sorted()
        if !missing.isEmpty { errors.append(FieldError("/component_ids", "leaves out \(missing.listed()): list every component once")) }
        if !errors.isEmpty { throw StoreError.invalid(errors) }
        return ids.map { byId[$0]! }
    }

    /// Fills `family` and `ui_components` (with fresh component ids) from a layout, where the body
    /// does not give them.
    static func applyingLayout(_ layoutId: JSONValue, to body: JSONValue, in tx: any ScreenTransaction) async throws -> JSONValue {
        // (null means "no layout", and is dropped like an absent member by the caller.)
        guard let id = layoutId.stringValue else {
            throw StoreError.invalid([FieldError("/from_layout", "must be a layout id (a string), not \(layoutId.typeName)")])
        }
        guard let layout = try await tx.layout(id: id) else {
            throw StoreError.invalid([FieldError("/from_layout", "no layout \(id.prefix(100)) in this app")])
        }
        guard var o = body.objectValue else { return body }
        o.removeValue(forKey: "from_layout")
        if o["family"] == nil || o["family"]!.isNull { o["family"] = layout["family"] }
        if o["ui_components"] == nil || o["ui_components"]!.isNull {
            var components = Component.withFreshIds(layout["ui_components"] ?? .array([]))
            // A connected screen's components take their data from the sender: the layout's data
            // sources do not come along.
            let connected = o["connected"]?.boolValue == true || (o["parent"].map { !$0.isNull } ?? false)
            if connected { components = withoutDataSources(components) }
            o["ui_components"] = components
        }
        return .object(o)
    }

    /// Components (and the children of groups) without `data.source` and `data.type`.
    static func withoutDataSources(_ components: JSONValue) -> JSONValue {
        guard let list = components.arrayValue else { return components }
        return .array(list.map { component in
            guard var c = component.objectValue else { return component }
            if var data = c["data"]?.objectValue {
                data.removeValue(forKey: "source")
                data.removeValue(forKey: "type")
                c["data"] = .object(data)
            }
            if let children = c["ui_components"] { c["ui_components"] = withoutDataSources(children) }
            return .object(c)
        })
    }
}

extension SavedScreen.FamilyLookup {
    /// The family, when there is one that reads.
    var found: Family? {
        if case .found(let family) = self { return family }
        return nil
    }
}
