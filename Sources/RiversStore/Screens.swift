import Foundation
import PostgresNIO
import RiversCore

extension Store {
    /// Creates a screen. `from_layout` fills the family and components the body leaves out; the
    /// first screen of an app becomes home; `screen_type` is generated from the app's counter.
    /// The answer is the stored text PostgreSQL returns (as a `GET` gives it), with the screen's id.
    public func createScreen(appId: String, body: JSONValue) async throws -> (resource: RecordText, id: String) {
        try await client.transaction(logger: logger) { connection in
            let number = try await lockApp(appId, on: connection)
            var body = body
            // A layout that cannot be used is listed with every other problem of the body (not
            // those of the family and components it would have filled).
            var layoutProblems: [FieldError] = []
            if let layoutId = body["from_layout"], !layoutId.isNull {
                do {
                    body = try await applyingLayout(layoutId, to: body, appId: appId, on: connection)
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
            let (registry, pluginStamp) = try await registryAndStamp(appId: appId, on: connection)
            let parents = try await screenParents(appId: appId, on: connection)
            var screen: Screen
            var family: (lookup: SavedScreen.FamilyLookup, stamp: String?)
            do {
                (screen, family) = try await readScreen(.body(body), options: registry.readOptions, registry: registry, appId: appId, parents: parents, on: connection) {
                    registry.fillingComponentStyles(registry.preparingNew($0))
                }
            } catch StoreError.invalid(let errors) where !layoutProblems.isEmpty {
                let filled = ["/family", "/ui_components"]
                throw StoreError.invalid(layoutProblems + errors.filter { e in !filled.contains { e.pointer == $0 || e.pointer.hasPrefix($0 + "/") } })
            }
            if !layoutProblems.isEmpty { throw StoreError.invalid(layoutProblems) }
            screen.screenType = ScreenTypeName.make(name: screen.name, number: number)
            if parents[screen.id] != nil {
                throw StoreError.conflict("a screen \(screen.id) exists already in this app", usedBy: [])
            }
            try Self.refuseAtCap(parents.count, limit: Limits.maxScreensPerApp, "screens")
            let stored = Self.storedBody(screen)
            if parents.isEmpty { screen.home = true }
            if screen.home { try await clearHome(appId: appId, except: screen.id, on: connection) }
            try await connection.query(
                "UPDATE apps SET next_screen_number = next_screen_number + 1 WHERE id = \(appId)::uuid", logger: logger)
            var written: (text: RecordText, stamp: String, bytes: Int)?
            for try await (text, revision, created, updated, stamp, bytes) in try await connection.query(
                """
                INSERT INTO screens (app_id, id, screen_type, home, parent, family, targets, body)
                VALUES (\(appId)::uuid, \(screen.id)::uuid, \(screen.screenType), \(screen.home), \(screen.parent)::uuid,
                        \(screen.family), \(screen.targets.sorted())::uuid[], \(stored)::jsonb)
                RETURNING \(unescaped: DocumentTable.screens.selectBody), revision, created_at, updated_at, revision || ':' || xmin::text, body_bytes
                """, logger: logger
            ).decode((ByteBuffer, Int, Date, Date, String, Int).self) {
                written = (RecordText(body: text, revision: revision, createdAt: created, updatedAt: updated), stamp, bytes)
            }
            guard let written else { throw StoreError.notFound("the row vanished during the write") }
            try await checkScreenSizes(appId: appId, ids: [screen.id], on: connection)
            try await checkAppSize(appId: appId, on: connection)
            // Kept as written, so that the first save after it reads no stored text either.
            var options = registry.readOptions
            options.pluginScreenTypes.insert(screen.type)
            savedScreens.keep(
                SavedScreen(screen: screen, family: family.lookup, options: options),
                for: SavedScreenCache.Key(appId: appId, screenId: screen.id.lowercased()),
                at: SavedScreenCache.Stamp(screen: written.stamp, family: family.stamp, plugins: pluginStamp), textBytes: written.bytes)
            return (written.text, screen.id)
        }
    }

    /// Changes a screen as `edit` asks: replaced by a body, merge-patched, or its components
    /// reordered. The current screen comes typed from the process's cache when its row version
    /// is the one kept (this process made or last saved it), else from its stored text, and the
    /// edit is applied to it typed (no JSON is made of it): the body sent is the only JSON text
    /// parsed then, and the stored form, written from the typed screen, the only one written (the
    /// answer is the stored text PostgreSQL returns). Issue 26; `ScreenWriteTests` count them.
    public func updateScreen(
        appId: String, id: String, precondition: RevisionPrecondition, edit: ScreenEdit
    ) async throws -> RecordText {
        try await client.transaction(logger: logger) { connection in
            _ = try await lockApp(appId, on: connection)
            let (registry, pluginStamp) = try await registryAndStamp(appId: appId, on: connection)
            let (current, revision) = try await currentScreen(appId: appId, id: id, registry: registry, pluginStamp: pluginStamp, on: connection)
            try precondition.check(revision)
            let currentScreen = current.value.screen
            var options = registry.readOptions
            // A screen keeps reading while its plugin is gone; the check below says so.
            options.pluginScreenTypes.insert(currentScreen.type)
            let parents = try await screenParents(appId: appId, on: connection)
            // The family the screen names now, from the kept screen's when it is the same row version.
            let known = current.familyStamp.flatMap { stamp in
                if case .found(let family) = current.value.family { return KnownFamily(id: family.id, stamp: stamp, family: family) }
                return nil
            }
            let read: ScreenSource
            switch edit {
            case .replace(let sent):
                var body = try bodyKeepingId(sent.removingBookkeeping(), id: id, normalize: UUIDText.normalize)
                // The home flag is the app's: a replacing body that leaves it out keeps it as it is.
                if var o = body.objectValue, o["home"] == nil || o["home"]!.isNull {
                    o["home"] = .bool(currentScreen.home)
                    body = .object(o)
                }
                read = .body(body)
            case .mergePatch(let patch):
                read = .mergePatch(patch, onto: currentScreen)
            case .reorder(let ids):
                var screen = currentScreen
                screen.uiComponents = try Self.reordered(currentScreen.uiComponents, ids: ids)
                read = .typed(screen)
            }
            let (readScreen, family) = try await readScreen(
                read, options: options, registry: registry, appId: appId, parents: parents, knownFamily: known, on: connection
            ) { read in
                var screen = read
                if screen.type != currentScreen.type {
                    screen.pluginVersion = nil
                    screen = registry.preparingNew(screen)
                } else if screen.pluginVersion == nil {
                    screen.pluginVersion = currentScreen.pluginVersion
                }
                return registry.fillingComponentStyles(screen)
            }
            var screen = readScreen
            if !screen.screenType.isEmpty, screen.screenType != currentScreen.screenType {
                throw StoreError.invalid([FieldError("/screen_type", "was generated when the screen was created and cannot change (it is \(currentScreen.screenType))")])
            }
            screen.screenType = currentScreen.screenType
            if currentScreen.home, !screen.home {
                throw StoreError.invalid([FieldError("/home", "an app has exactly one home screen: make another screen home instead")])
            }
            if screen == currentScreen, let text = try await fetchText(.screens, appId: appId, id: id, on: connection, lock: .none) {
                return text
            }
            let stored = Self.storedBody(screen)
            if screen.home, !currentScreen.home { try await clearHome(appId: appId, except: screen.id, on: connection) }
            var written: (text: RecordText, stamp: String)?
            for try await (text, revision, created, updated, stamp) in try await connection.query(
                """
                UPDATE screens SET home = \(screen.home), parent = \(screen.parent)::uuid, family = \(screen.family),
                    targets = \(screen.targets.sorted())::uuid[], body = \(stored)::jsonb,
                    revision = revision + 1, updated_at = now()
                WHERE app_id = \(appId)::uuid AND id = \(screen.id)::uuid
                RETURNING \(unescaped: DocumentTable.screens.selectBody), revision, created_at, updated_at, revision || ':' || xmin::text
                """, logger: logger
            ).decode((ByteBuffer, Int, Date, Date, String).self) {
                written = (RecordText(body: text, revision: revision, createdAt: created, updatedAt: updated), stamp)
            }
            guard let written else { throw StoreError.notFound("the row vanished during the write") }
            try await checkScreenSizes(appId: appId, ids: [screen.id], on: connection)
            try await checkAppSize(appId: appId, on: connection)
            // Kept as written, under the row version just made (should the transaction not commit,
            // no row will ever have that version, and the entry is never used).
            options.pluginScreenTypes.insert(screen.type)
            savedScreens.keep(
                SavedScreen(screen: screen, family: family.lookup, options: options), for: current.key,
                at: SavedScreenCache.Stamp(screen: written.stamp, family: family.stamp, plugins: pluginStamp),
                textBytes: written.text.body.readableBytes)
            return written.text
        }
    }

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

    /// A family already read, at the row version `stamp` (`revision:xmin`).
    struct KnownFamily {
        var id: String
        var stamp: String
        var family: Family
    }

    /// The screen `id` locked for update, typed: from the process's cache when its row version,
    /// its family's and the app's plugins' are those kept, else read from its stored text.
    func currentScreen(
        appId: String, id: String, registry: PluginRegistry, pluginStamp: String, on connection: PostgresConnection
    ) async throws -> (current: (value: SavedScreen, key: SavedScreenCache.Key, familyStamp: String?), revision: Int) {
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
        let key = SavedScreenCache.Key(appId: appId, screenId: id.lowercased())
        if let kept = savedScreens.screen(for: key, screen: row.stamp, plugins: pluginStamp) {
            // Its family as kept only if that row version is still the current one.
            return ((kept.value, key, kept.familyStamp == row.familyStamp ? kept.familyStamp : nil), row.revision)
        }
        guard let text = try await fetchText(.screens, appId: appId, id: id, on: connection, lock: .none) else {
            throw StoreError.notFound("no screen \(id) in this app")
        }
        let (screen, options) = try Self.readStoredScreen(text.body, registry: registry)
        // Its family is not read here: the write reads the family it names then.
        return ((SavedScreen(screen: screen, family: .missing, options: options), key, nil), row.revision)
    }

    /// Deletes a screen nothing points at. Deleting the home screen makes the first remaining
    /// screen home, so the app keeps exactly one.
    public func deleteScreen(appId: String, id: String, precondition: RevisionPrecondition) async throws {
        try await client.transaction(logger: logger) { connection in
            _ = try await lockApp(appId, on: connection)
            let current = try await fetch(.screens, appId: appId, id: id, on: connection, lock: .update)
            try precondition.check(current.revision)
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
            if !users.isEmpty {
                throw StoreError.conflict("screen \(id) is the parent or target of \(users.count) other screen(s)", usedBy: users)
            }
            try await connection.query("DELETE FROM screens WHERE app_id = \(appId)::uuid AND id = \(id)::uuid", logger: logger)
            if current.body["home"]?.boolValue == true {
                try await connection.query(
                    """
                    UPDATE screens SET home = true, revision = revision + 1, updated_at = now()
                    WHERE app_id = \(appId)::uuid
                      AND position = (SELECT min(position) FROM screens WHERE app_id = \(appId)::uuid)
                    """, logger: logger)
            }
        }
    }

    // MARK: Helpers

    /// Reads a screen body and checks it against the rest of the app (family and cell styles,
    /// parent and targets, plugins, navigations and hooks), reporting every problem of the body at
    /// once. `prepare` turns the screen as read into the screen as it will be stored.
    func readScreen(
        _ source: ScreenSource, options: Screen.ReadOptions, registry: PluginRegistry, appId: String, parents: [String: String?],
        knownFamily: KnownFamily? = nil, on connection: PostgresConnection, prepare: (Screen) -> Screen
    ) async throws -> (screen: Screen, family: (lookup: SavedScreen.FamilyLookup, stamp: String?)) {
        let problems = Problems()
        let screen: Screen?
        switch source {
        case .body(let body): screen = Screen.read(body, options: options, problems: problems).map(prepare)
        case .mergePatch(let patch, let base): screen = Screen.read(mergePatch: patch, onto: base, options: options, problems: problems).map(prepare)
        case .typed(let typed): screen = prepare(typed)
        }
        var errors = problems.errors
        var family: (lookup: SavedScreen.FamilyLookup, stamp: String?) = (.missing, nil)
        if let screen {
            // The screen as it will be stored, checked typed.
            if !screen.family.isEmpty {
                family = try await loadFamily(appId, id: screen.family, known: knownFamily, on: connection)
                var found: Family?
                if case .found(let f) = family.lookup { found = f }
                errors += References.checkCellStyles(screen.uiComponents, family: found, familyId: screen.family)
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
                let found = try await loadFamily(appId, id: familyId, on: connection)
                errors += References.checkCellStyles(json: body["ui_components"], family: found, familyId: familyId)
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
        return (screen, family)
    }

    /// The body as stored: everything but `home`, which lives in its own column, written from
    /// the typed screen.
    static func storedBody(_ screen: Screen) -> String {
        String(decoding: screen.storedForm(), as: UTF8.self)
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

    /// Fills `family` and `ui_components` (with fresh component ids) from a layout, where the body
    /// does not give them.
    func applyingLayout(_ layoutId: JSONValue, to body: JSONValue, appId: String, on connection: PostgresConnection) async throws -> JSONValue {
        // (null means "no layout", and is dropped like an absent member by the caller.)
        guard let id = layoutId.stringValue else {
            throw StoreError.invalid([FieldError("/from_layout", "must be a layout id (a string), not \(layoutId.typeName)")])
        }
        guard let record = try await fetchIfPresent(.layouts, appId: appId, id: id, on: connection, lock: .share) else {
            throw StoreError.invalid([FieldError("/from_layout", "no layout \(id) in this app")])
        }
        guard var o = body.objectValue else { return body }
        o.removeValue(forKey: "from_layout")
        if o["family"] == nil || o["family"]!.isNull { o["family"] = record.body["family"] }
        if o["ui_components"] == nil || o["ui_components"]!.isNull {
            var components = Component.withFreshIds(record.body["ui_components"] ?? .array([]))
            // A connected screen's components take their data from the sender: the layout's data
            // sources do not come along.
            let connected = o["connected"]?.boolValue == true || (o["parent"].map { !$0.isNull } ?? false)
            if connected { components = Self.withoutDataSources(components) }
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
