/// An app read from an existing rivers.json: its screens and the families they name.
public struct ImportedApp: Sendable, Hashable {
    /// In document order, ids lower-cased. `screenType` is as found (empty when absent): the
    /// caller generates the missing ones.
    public var screens: [Screen]
    /// Every family a screen names, in order of first use, with default values to edit and one
    /// cell style per cell style id its components name.
    public var families: [Family]
    /// Values the model has no place for, which the import left out (pointers into the document).
    public var warnings: [FieldError]

    public init(screens: [Screen], families: [Family], warnings: [FieldError] = []) {
        self.screens = screens
        self.families = families
        self.warnings = warnings
    }
}

/// Reads an existing rivers.json (Zapp's or ours) into the model. Pointers in errors are into the
/// document: `/<screen index>/ui_components/<i>/component_type`.
public enum RiversImport {
    public static let defaultFamily = "FAMILY_1"
    /// The reference size of an imported family, to be edited afterwards.
    public static let defaultReferenceSize = Size(width: 320, height: 568)
    public static let defaultCellStyleWidth = CellWidth.columns(1)
    public static let defaultCellStyleHeight = CellHeight.aspectRatio(1.7778)

    static let screenKeys: Set<String> = [
        "id", "name", "type", "home", "home_offline", "supports_offline", "screen_type", "data", "styles",
        "ui_components", "navigations", "hooks", "rules", "general", "advertising",
    ]
    static let componentKeys: Set<String> = ["id", "component_type", "data", "styles", "rules", "advertising", "position", "ui_components"]
    static let maxDepth = 4

    /// Reads the JSON text of a document; invalid JSON gives one error at "" naming the line and column.
    public static func read(
        bytes: some Collection<UInt8>, catalog: ComponentCatalog, knownScreenTypes: Set<String>
    ) throws(ValidationFailure) -> ImportedApp {
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes)
        } catch {
            throw ValidationFailure([FieldError("", error.description)])
        }
        return try read(json, catalog: catalog, knownScreenTypes: knownScreenTypes)
    }

    public static func read(_ json: JSONValue, catalog: ComponentCatalog, knownScreenTypes: Set<String>) throws(ValidationFailure) -> ImportedApp {
        guard case .array(let items) = json else {
            throw ValidationFailure([FieldError("", "a rivers document is an array of screens, not \(json.typeName)")])
        }
        var reader = Reader(catalog: catalog, screenTypes: Screen.builtInTypes.union(knownScreenTypes))
        var screens: [Screen] = []
        var anyHomeKey = false
        for (index, item) in items.enumerated() {
            let pointer = JSONPointer.join("", index)
            if item["home"] != nil, item["home"]?.isNull == false { anyHomeKey = true }
            if let screen = reader.screen(item, at: pointer) { screens.append(screen) }
        }
        if !reader.errors.isEmpty { throw ValidationFailure(reader.errors) }
        // A document written before `home` existed: the first screen opens the app.
        if !anyHomeKey, !screens.isEmpty { screens[0].home = true }

        let families = reader.familyOrder.map { id in
            Family(
                id: id, name: id, referenceSize: defaultReferenceSize, insets: Insets(), interitemSpacing: 0, lineSpacing: 0,
                cellStyles: (reader.cellStylesByFamily[id] ?? []).map {
                    CellStyle(id: $0, width: defaultCellStyleWidth, height: defaultCellStyleHeight)
                })
        }
        return ImportedApp(screens: screens, families: families, warnings: reader.warnings)
    }

    /// The id of a component that has none: from its screen's id and its 1-based place
    /// (`<screen id>-3`, `<screen id>-3-1` for the first child of the third component).
    public static func generatedComponentId(screenId: String, path: [Int]) -> String {
        ([screenId] + path.map(String.init)).joined(separator: "-")
    }

    struct Reader {
        let catalog: ComponentCatalog
        let screenTypes: Set<String>
        var errors: [FieldError] = []
        var warnings: [FieldError] = []
        var familyOrder: [String] = []
        /// Each screen id read so far, with the pointer of its screen.
        var screenIds: [String: String] = [:]
        var cellStylesByFamily: [String: [String]] = [:]

        init(catalog: ComponentCatalog, screenTypes: Set<String>) {
            self.catalog = catalog
            self.screenTypes = screenTypes
        }

        mutating func error(_ pointer: String, _ message: String) { errors.append(FieldError(pointer, message)) }
        mutating func warn(_ pointer: String, _ message: String) { warnings.append(FieldError(pointer, message)) }

        // MARK: Loose scalars

        /// A string member; nil when absent or null, an error for another type.
        mutating func string(_ object: [String: JSONValue], _ key: String, at pointer: String, required: Bool = false) -> String? {
            let p = JSONPointer.join(pointer, key)
            guard let value = object[key], !value.isNull else {
                if required { error(p, "is required") }
                return nil
            }
            guard let s = value.stringValue else {
                error(p, "must be a string, not \(value.typeName)")
                return nil
            }
            return s
        }

        /// A data source value: a string, or a number written without quotes (a feed id).
        mutating func sourceString(_ object: [String: JSONValue], _ key: String, at pointer: String) -> String {
            if let n = object[key]?.numberValue { return fmt(n) }
            return string(object, key, at: pointer) ?? ""
        }

        /// A boolean; `"true"` and `"false"` as strings are normalised.
        mutating func bool(_ object: [String: JSONValue], _ key: String, at pointer: String) -> Bool? {
            guard let value = object[key], !value.isNull else { return nil }
            switch value {
            case .bool(let b): return b
            case .string("true"): return true
            case .string("false"): return false
            default:
                error(JSONPointer.join(pointer, key), "must be true or false, not \(value.serializedString())")
                return nil
            }
        }

        mutating func uuid(_ object: [String: JSONValue], _ key: String, at pointer: String, required: Bool = false) -> String? {
            guard let s = string(object, key, at: pointer, required: required) else { return nil }
            if s.isEmpty, !required { return nil }
            guard let id = UUIDText.normalize(s) else {
                error(JSONPointer.join(pointer, key), "must be a screen id (a UUID), got \"\(s)\"")
                return nil
            }
            return id
        }

        /// An object member; `{}` when absent or null, an error for another type.
        mutating func object(_ object: [String: JSONValue], _ key: String, at pointer: String) -> [String: JSONValue] {
            guard let value = object[key], !value.isNull else { return [:] }
            guard let o = value.objectValue else {
                error(JSONPointer.join(pointer, key), "must be an object, not \(value.typeName)")
                return [:]
            }
            return o
        }

        mutating func array(_ object: [String: JSONValue], _ key: String, at pointer: String) -> [JSONValue] {
            guard let value = object[key], !value.isNull else { return [] }
            guard let a = value.arrayValue else {
                error(JSONPointer.join(pointer, key), "must be an array, not \(value.typeName)")
                return []
            }
            return a
        }

        mutating func upperSnake(_ value: String, at pointer: String, what: String) -> Bool {
            if value.isEmpty || value.count > 100 || !value.allSatisfy(IdentifierRules.isUpperSnake) {
                error(pointer, "must be \(what): upper-case letters, digits and _ (got \"\(value)\")")
                return false
            }
            return true
        }

        // MARK: Screens

        mutating func screen(_ value: JSONValue, at pointer: String) -> Screen? {
            guard let o = value.objectValue else {
                error(pointer, "must be a screen object, not \(value.typeName)")
                return nil
            }
            let before = errors.count
            for key in o.keys.sorted() where !screenKeys.contains(key) {
                warn(JSONPointer.join(pointer, key), "is not kept: the model has no place for it")
            }
            let id = uuid(o, "id", at: pointer, required: true)
            if let id {
                if let other = screenIds[id] {
                    error(JSONPointer.join(pointer, "id"), "duplicates the id of the screen at \(other)")
                } else {
                    screenIds[id] = pointer
                }
            }
            let name = string(o, "name", at: pointer, required: true)
            if let name, name.trimmingWhitespace().isEmpty || name.unicodeScalars.count > Limits.maxNameLength {
                error(JSONPointer.join(pointer, "name"), name.unicodeScalars.count > Limits.maxNameLength ? "must be at most \(Limits.maxNameLength) characters" : "must not be empty")
            }
            let type = string(o, "type", at: pointer) ?? Screen.generalContent
            if !screenTypes.contains(type) {
                error(JSONPointer.join(pointer, "type"), "unknown screen type \"\(type)\": use general_content or the identifier of a screen plugin the app has")
            }
            let home = bool(o, "home", at: pointer) ?? false
            let homeOffline = bool(o, "home_offline", at: pointer) ?? false
            let supportsOffline = bool(o, "supports_offline", at: pointer) ?? false
            let screenType = string(o, "screen_type", at: pointer) ?? ""

            let dataPointer = JSONPointer.join(pointer, "data")
            var data = object(o, "data", at: pointer)
            let connected = bool(data, "connected", at: dataPointer) ?? false
            let parent = uuid(data, "parent", at: dataPointer)
            data.removeValue(forKey: "connected")
            data.removeValue(forKey: "parent")

            let stylesPointer = JSONPointer.join(pointer, "styles")
            var styles = object(o, "styles", at: pointer)
            let screenFamily = string(styles, "family", at: stylesPointer)
            styles.removeValue(forKey: "family")

            let rules = object(o, "rules", at: pointer)
            let general = object(o, "general", at: pointer)
            let advertising = object(o, "advertising", at: pointer)
            let hooks = self.hooks(o, at: pointer)
            let navigations = self.navigations(o, at: pointer)

            // Components, with the family their styles name and every cell style id they name.
            var found = FoundStyles()
            var componentIds: [String: String] = [:]
            var rawComponents = array(o, "ui_components", at: pointer)
            // The same budget as the API: counted before any component is read.
            let total = Component.count(rawComponents)
            if total > Limits.maxComponentsPerScreen {
                error(JSONPointer.join(pointer, "ui_components"), "a screen holds at most \(Limits.maxComponentsPerScreen) components, group children included (got \(total))")
                rawComponents = []
            }
            let components = componentList(
                rawComponents, at: JSONPointer.join(pointer, "ui_components"),
                screenId: id ?? "", path: [], connected: connected, found: &found, ids: &componentIds)

            var familyId = Self.defaultFamilyId
            if let screenFamily, !screenFamily.isEmpty {
                if upperSnake(screenFamily, at: JSONPointer.join(stylesPointer, "family"), what: "a family id") { familyId = screenFamily }
            } else if let componentFamily = found.family {
                if upperSnake(componentFamily.id, at: componentFamily.pointer, what: "a family id") { familyId = componentFamily.id }
            }

            guard errors.count == before, let id, let name else { return nil }
            use(family: familyId, cellStyles: found.cellStyles)
            return Screen(
                id: id, name: name, type: type, screenType: screenType, home: home, homeOffline: homeOffline,
                supportsOffline: supportsOffline, connected: connected, parent: parent, family: familyId, styles: styles, data: data, rules: rules, general: general, advertising: advertising,
                hooks: hooks, navigations: navigations, uiComponents: components)
        }

        static let defaultFamilyId = RiversImport.defaultFamily

        mutating func use(family: String, cellStyles: [String]) {
            if cellStylesByFamily[family] == nil {
                familyOrder.append(family)
                cellStylesByFamily[family] = []
            }
            for style in cellStyles where !cellStylesByFamily[family]!.contains(style) {
                cellStylesByFamily[family]!.append(style)
            }
        }

        /// Keys the model has no place for are left out, with a warning each.
        mutating func dropUnknown(_ o: inout [String: JSONValue], allowed: Set<String>, at pointer: String, what: String) {
            for key in o.keys.sorted() where !allowed.contains(key) {
                warn(JSONPointer.join(pointer, key), "is not kept: \(what) has \(allowed.sorted().joined(separator: ", "))")
                o.removeValue(forKey: key)
            }
        }

        /// The screen's hooks, read by the model (`ScreenHooks`) after two repairs: keys it has no
        /// place for are left out (with a warning) and a weight written as a string becomes a number.
        mutating func hooks(_ o: [String: JSONValue], at pointer: String) -> JSONValue {
            let hooksPointer = JSONPointer.join(pointer, "hooks")
            guard let given = o["hooks"], !given.isNull else { return Screen.emptyHooks }
            guard var h = given.objectValue else {
                error(hooksPointer, "must be an object {preload_plugins, postload_plugins}, not \(given.typeName)")
                return Screen.emptyHooks
            }
            dropUnknown(&h, allowed: ["preload_plugins", "postload_plugins"], at: hooksPointer, what: "hooks")
            for key in ["preload_plugins", "postload_plugins"] {
                guard let list = h[key]?.arrayValue else { continue }
                var repaired: [JSONValue] = []
                for (i, item) in list.enumerated() {
                    guard var hook = item.objectValue else {
                        repaired.append(item)
                        continue
                    }
                    dropUnknown(&hook, allowed: Hook.keys, at: JSONPointer.join(JSONPointer.join(hooksPointer, key), i), what: "a hook")
                    if let w = hook["weight"]?.stringValue, let n = Double(w.trimmingWhitespace()), n.isFinite {
                        hook["weight"] = .number(n)
                    }
                    repaired.append(.object(hook))
                }
                h[key] = .array(repaired)
            }
            let (parsed, problems) = ScreenHooks.parse(.object(h), pointer: hooksPointer)
            errors.append(contentsOf: problems)
            return parsed?.toJSON() ?? Screen.emptyHooks
        }

        /// The screen's navigations, read by the model (`Navigation`), after leaving out keys it
        /// has no place for (with a warning). Screen links come out as lower-case UUIDs.
        mutating func navigations(_ o: [String: JSONValue], at pointer: String) -> [JSONValue] {
            let listPointer = JSONPointer.join(pointer, "navigations")
            var result: [JSONValue] = []
            for (i, item) in array(o, "navigations", at: pointer).enumerated() {
                let p = JSONPointer.join(listPointer, i)
                let (parsed, problems) = Navigation.parse(repairedNavigation(item, at: p, keys: Navigation.keys, what: "a navigation"), pointer: p)
                errors.append(contentsOf: problems)
                if let parsed { result.append(parsed.toJSON()) }
            }
            return result
        }

        mutating func repairedNavigation(_ value: JSONValue, at pointer: String, keys: Set<String>, what: String) -> JSONValue {
            guard var o = value.objectValue else { return value }
            dropUnknown(&o, allowed: keys, at: pointer, what: what)
            if var data = o["data"]?.objectValue {
                dropUnknown(&data, allowed: NavItemData.keys, at: JSONPointer.join(pointer, "data"), what: "nav item data")
                o["data"] = .object(data)
            }
            if let items = o["nav_items"]?.arrayValue {
                var repaired: [JSONValue] = []
                for (i, item) in items.enumerated() {
                    repaired.append(repairedNavigation(item, at: JSONPointer.join(JSONPointer.join(pointer, "nav_items"), i), keys: NavItem.keys, what: "a nav item"))
                }
                o["nav_items"] = .array(repaired)
            }
            return .object(o)
        }

        // MARK: Components

        struct FoundStyles {
            /// The first family a component's styles name, and where.
            var family: (id: String, pointer: String)?
            var cellStyles: [String] = []
        }

        mutating func componentList(
            _ list: [JSONValue], at pointer: String, screenId: String, path: [Int], connected: Bool,
            found: inout FoundStyles, ids: inout [String: String]
        ) -> [Component] {
            var result: [Component] = []
            for (index, item) in list.enumerated() {
                let p = JSONPointer.join(pointer, index)
                if let c = component(item, at: p, screenId: screenId, path: path + [index + 1], connected: connected, found: &found, ids: &ids) {
                    result.append(c)
                }
            }
            return result
        }

        mutating func component(
            _ value: JSONValue, at pointer: String, screenId: String, path: [Int], connected: Bool,
            found: inout FoundStyles, ids: inout [String: String]
        ) -> Component? {
            guard let o = value.objectValue else {
                error(pointer, "must be a component object, not \(value.typeName)")
                return nil
            }
            let before = errors.count
            for key in o.keys.sorted() where !componentKeys.contains(key) {
                warn(JSONPointer.join(pointer, key), "is not kept: the model has no place for it")
            }

            let typeId = string(o, "component_type", at: pointer, required: true)
            var type: ComponentType?
            if let typeId {
                type = catalog.types[typeId]
                if type == nil {
                    error(JSONPointer.join(pointer, "component_type"), "unknown component type \"\(typeId)\": not built in and no ui_component plugin with this identifier")
                }
            }

            var id = RiversImport.generatedComponentId(screenId: screenId, path: path)
            if let given = string(o, "id", at: pointer) {
                if given.isEmpty {
                    // Empty: treated as missing.
                } else if given.count > 100 || !given.allSatisfy(IdentifierRules.isToken) {
                    error(JSONPointer.join(pointer, "id"), "must be letters, digits, '_', '-' or '.' (got \"\(given)\")")
                } else {
                    id = given
                }
            }
            if let other = ids[id] {
                error(JSONPointer.join(pointer, "id"), "duplicates the id of the component at \(other)")
            } else {
                ids[id] = pointer
            }

            // data
            var data: ComponentData?
            let dataPointer = JSONPointer.join(pointer, "data")
            if let d = o["data"], !d.isNull {
                if let dataObject = d.objectValue {
                    for key in dataObject.keys.sorted() where !["source", "type", "target", "connected"].contains(key) {
                        warn(JSONPointer.join(dataPointer, key), "is not kept: component data is source, type, target and connected")
                    }
                    var source = sourceString(dataObject, "source", at: dataPointer)
                    var sourceType = string(dataObject, "type", at: dataPointer) ?? ""
                    if connected, !source.isEmpty || !sourceType.isEmpty {
                        // A connected screen's components take their items from the sender.
                        warn(dataPointer, "source and type are left out: on a connected screen the items come from the sender")
                        source = ""
                        sourceType = ""
                    }
                    data = ComponentData(
                        source: source, type: sourceType,
                        target: uuid(dataObject, "target", at: dataPointer),
                        connected: bool(dataObject, "connected", at: dataPointer))
                } else {
                    error(dataPointer, "must be an object, not \(d.typeName)")
                }
            }

            // rules
            var itemLimit: Int?
            let rulesPointer = JSONPointer.join(pointer, "rules")
            let rules = object(o, "rules", at: pointer)
            // Rules besides item_limit are kept as they are (clients read some Rivers does not model).
            let otherRules = rules.filter { $0.key != "item_limit" && !$0.value.isNull }
            if let web = rules["web_page_shows_navigation"], !web.isNull, web.boolValue == nil {
                error(JSONPointer.join(rulesPointer, "web_page_shows_navigation"), "must be true or false, not \(web.typeName)")
            }
            let advertising = object(o, "advertising", at: pointer)
            if let limit = rules["item_limit"], !limit.isNull {
                var number: Double?
                switch limit {
                case .number(let n): number = n
                case .string(let s):
                    let trimmed = s.trimmingWhitespace()
                    number = trimmed.isEmpty ? nil : (Double(trimmed) ?? .nan)
                default: number = .nan
                }
                if let n = number {
                    if n.isFinite, n.rounded() == n, n >= 0, n <= Double(Limits.maxItemLimit) {
                        itemLimit = Int(n)
                    } else {
                        error(JSONPointer.join(rulesPointer, "item_limit"), "must be a whole number of items, not \(limit.serializedString())")
                    }
                }
            }

            // styles
            let stylesPointer = JSONPointer.join(pointer, "styles")
            var styles = object(o, "styles", at: pointer)
            if let family = string(styles, "family", at: stylesPointer), !family.isEmpty, found.family == nil {
                found.family = (family, JSONPointer.join(stylesPointer, "family"))
            }
            var cellStyles: [String] = []
            for key in ["cell_styles", "cell_body_styles"] {
                let listPointer = JSONPointer.join(stylesPointer, key)
                guard let raw = styles[key], !raw.isNull else { continue }
                guard let list = raw.arrayValue else {
                    error(listPointer, "must be an array of cell style ids, not \(raw.typeName)")
                    continue
                }
                var ids: [String] = []
                for (i, item) in list.enumerated() {
                    guard let s = item.stringValue else {
                        error(JSONPointer.join(listPointer, i), "must be a cell style id, not \(item.typeName)")
                        continue
                    }
                    if upperSnake(s, at: JSONPointer.join(listPointer, i), what: "a cell style id") { ids.append(s) }
                }
                found.cellStyles.append(contentsOf: ids)
                if key == "cell_styles" { cellStyles = ids }
            }
            let layout = string(styles, "layout", at: stylesPointer)
            let header = decoration(styles, "header", at: stylesPointer)
            let footer = decoration(styles, "footer", at: stylesPointer)
            for key in RiversDocument.reservedComponentStyles { styles.removeValue(forKey: key) }

            // children
            var children: [Component] = []
            let list = array(o, "ui_components", at: pointer)
            if !list.isEmpty {
                let childrenPointer = JSONPointer.join(pointer, "ui_components")
                if let type, !type.holdsChildren {
                    error(childrenPointer, "a \(type.id) cannot hold components; only a group can")
                } else if path.count > RiversImport.maxDepth {
                    error(childrenPointer, "groups nest at most \(RiversImport.maxDepth) levels deep")
                } else {
                    children = componentList(list, at: childrenPointer, screenId: screenId, path: path, connected: connected, found: &found, ids: &ids)
                }
            }

            guard errors.count == before, let typeId else { return nil }
            return Component(
                id: id, componentType: typeId, cellStyles: cellStyles, layout: layout, header: header, footer: footer,
                itemLimit: itemLimit, rules: otherRules, advertising: advertising, data: data, styles: styles, uiComponents: children)
        }

        mutating func decoration(_ styles: [String: JSONValue], _ key: String, at pointer: String) -> SectionDecoration {
            let p = JSONPointer.join(pointer, key)
            let d = object(styles, key, at: pointer)
            for extra in d.keys.sorted() where extra != "visible" && extra != "style" {
                warn(JSONPointer.join(p, extra), "is not kept: a \(key) is visible and style")
            }
            return SectionDecoration(visible: bool(d, "visible", at: p) ?? false, style: string(d, "style", at: p))
        }
    }
}
