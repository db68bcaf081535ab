/// An app read from an existing rivers.json: its screens and the families they name.
public struct ImportedApp: Sendable, Hashable {
    /// In document order, ids lower-cased. `screenType` is as found (empty when absent): the
    /// caller generates the missing ones.
    public var screens: [Screen]
    /// Every family a screen names, in order of first use, with default values to edit and one
    /// cell style per cell style id its components name.
    public var families: [Family]
    /// What deserves a look (pointers into the document): members kept as they are because
    /// Rivers does not model them, and values left out.
    public var warnings: [FieldError]
    /// The document was one screen object, not an array.
    public var single: Bool
    /// Navigation types the document names that are neither built in nor registered, in order of
    /// first use: each is imported with a warning and gets a placeholder registration
    /// (`RiversImport.placeholderManifest`) for the user to complete with the plugin's manifest.
    public var placeholderPlugins: [String]

    public init(screens: [Screen], families: [Family], warnings: [FieldError] = [], single: Bool = false, placeholderPlugins: [String] = []) {
        self.screens = screens
        self.families = families
        self.warnings = warnings
        self.single = single
        self.placeholderPlugins = placeholderPlugins
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

    /// Reads the JSON text of a document; invalid JSON gives one error at "" naming the line and column.
    public static func read(
        bytes: some Collection<UInt8>, options: Screen.ReadOptions, knownScreenTypes: Set<String> = []
    ) throws(ValidationFailure) -> ImportedApp {
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes)
        } catch {
            throw ValidationFailure([FieldError("", error.description)])
        }
        return try read(json, options: options)
    }

    /// Reads a document: an array of screens, or one screen object (as a screen plugin's entry is
    /// shown). Each screen is read by `Screen.read` in `.document` mode, the reader of API bodies,
    /// so the same rules hold; what differs is where a document keeps things (see there).
    public static func read(_ json: JSONValue, options: Screen.ReadOptions) throws(ValidationFailure) -> ImportedApp {
        let single = json.objectValue != nil
        guard let items = single ? [json] : json.arrayValue else {
            throw ValidationFailure([FieldError("", "a rivers document is an array of screens (or one screen object), not \(json.typeName)")])
        }
        let problems = Problems(mode: .document)
        // A real document may name a navigation plugin this app has not registered yet: it is
        // imported, with a warning where it is named and a placeholder registration to complete.
        var options = options
        var placeholders: [String] = []
        var placeholderSet: Set<String> = []
        if let known = options.navigationTypes {
            for (index, item) in items.enumerated() {
                let pointer = single ? "" : JSONPointer.join("", index)
                for (i, navigation) in (item["navigations"]?.arrayValue ?? []).enumerated() {
                    guard let type = navigation["navigation_type"]?.stringValue, !known.contains(type),
                          PluginManifest.isValidIdentifier(type), !PluginManifest.reservedIdentifiers.contains(type)
                    else { continue }
                    if placeholderSet.insert(type).inserted {
                        // Each becomes a plugin of the app: no app may have more (and a document
                        // naming thousands is refused before any more of it is read).
                        guard placeholders.count < Limits.maxPluginsPerApp else {
                            throw ValidationFailure([FieldError(
                                JSONPointer.join(JSONPointer.join(JSONPointer.join(pointer, "navigations"), i), "navigation_type"),
                                "the document names more than \(Limits.maxPluginsPerApp) navigation plugins this app has not registered, the most one app may have")])
                        }
                        placeholders.append(type)
                    }
                    problems.warn(
                        JSONPointer.join(JSONPointer.join(JSONPointer.join(pointer, "navigations"), i), "navigation_type"),
                        "no plugin \(type) is registered in this app: a placeholder registration (version \(placeholderVersion)) is made for it; complete it with the plugin's manifest (PUT /plugins/\(type))")
                }
            }
            options.navigationTypes = known.union(placeholders)
        }
        var screens: [Screen] = []
        var screenIds: [String: String] = [:]
        var familyOrder: [String] = []
        var cellStylesByFamily: [String: [String]] = [:]
        // The same, as sets (a document may name thousands of styles), and where each family is
        // first named (its problems are reported there).
        var seenStyles: [String: Set<String>] = [:]
        var familyPointer: [String: String] = [:]
        for (index, item) in items.enumerated() {
            let pointer = single ? "" : JSONPointer.join("", index)
            // Ids are compared as written, so a screen with other problems still claims its id.
            if let id = item["id"]?.stringValue.flatMap(UUIDText.normalize) {
                if let other = screenIds[id] {
                    problems.add(JSONPointer.join(pointer, "id"), "duplicates the id of the screen at \(other)")
                } else {
                    screenIds[id] = pointer
                }
            }
            guard var screen = Screen.read(item, at: pointer, options: options, problems: problems) else { continue }
            // A screen that names no family takes the first one its components name.
            if screen.family.isEmpty { screen.family = componentFamily(item, at: pointer, problems: problems) ?? defaultFamily }
            if cellStylesByFamily[screen.family] == nil {
                familyOrder.append(screen.family)
                cellStylesByFamily[screen.family] = []
                familyPointer[screen.family] = pointer
            }
            screen.uiComponents.walk(at: "") { component, _ in
                let bodyStyles = (component.styles["cell_body_styles"]?.arrayValue ?? []).compactMap(\.stringValue)
                for style in component.cellStyles + bodyStyles where seenStyles[screen.family, default: []].insert(style).inserted {
                    cellStylesByFamily[screen.family]!.append(style)
                }
            }
            screens.append(screen)
        }
        // A family the document makes holds what any family may.
        for id in familyOrder where (cellStylesByFamily[id]?.count ?? 0) > Limits.maxCellStylesPerFamily {
            problems.add(
                familyPointer[id] ?? "",
                "the screens name \(cellStylesByFamily[id]!.count) cell styles of family \(id): a family holds at most \(Limits.maxCellStylesPerFamily)")
        }
        if !problems.isEmpty { throw problems.failure }
        let families = familyOrder.map { id in
            Family(
                id: id, name: id, referenceSize: defaultReferenceSize, insets: Insets(), interitemSpacing: 0, lineSpacing: 0,
                cellStyles: (cellStylesByFamily[id] ?? []).map {
                    CellStyle(id: $0, width: defaultCellStyleWidth, height: defaultCellStyleHeight)
                })
        }
        return ImportedApp(screens: screens, families: families, warnings: problems.warnings, single: single, placeholderPlugins: placeholders)
    }

    /// The version of a placeholder registration: any real manifest version replaces it.
    public static let placeholderVersion = "0.0.0"

    /// The manifest registered for a navigation plugin a document names and the app lacks: enough
    /// for the registry, saying what it is; the user replaces it with the plugin's own manifest.
    public static func placeholderManifest(identifier: String) -> JSONValue {
        [
            "identifier": .string(identifier), "name": .string(identifier), "type": "menu",
            "description": "A placeholder registered by an import: a document names this navigation plugin. Replace it with the plugin's manifest.",
            "manifest_version": .string(placeholderVersion), "author_name": "", "author_email": "", "min_zapp_sdk": "",
            "ui_builder_support": true,
        ]
    }

    /// Where a problem of a screen's member sits in the document: `parent` and `connected`, which a
    /// document keeps inside `data`, are reported at `/data/parent` when that is where they are.
    public static func documentPointer(_ pointer: String, in screen: JSONValue) -> String {
        for key in ["parent", "connected"] where pointer == "/" + key || pointer.hasPrefix("/" + key + "/") {
            if screen[key] == nil, screen["data"]?[key] != nil { return "/data" + pointer }
        }
        return pointer
    }

    /// The first family a component of the screen names in its styles (depth first), checked.
    static func componentFamily(_ screen: JSONValue, at pointer: String, problems: Problems) -> String? {
        func visit(_ list: JSONValue?, at pointer: String) -> String? {
            for (i, item) in (list?.arrayValue ?? []).enumerated() {
                let p = JSONPointer.join(pointer, i)
                if let styles = ObjectReader(item["styles"], at: JSONPointer.join(p, "styles"), problems: Problems(), required: false),
                   styles.object["family"]?.stringValue?.isEmpty == false {
                    return styles.identifier("family", allowed: IdentifierRules.isUpperSnake, describe: "a family id (like FAMILY_1)")
                        ?? { problems.add(styles.at("family"), "must be a family id (like FAMILY_1)"); return nil }()
                }
                if let found = visit(item["ui_components"], at: JSONPointer.join(p, "ui_components")) { return found }
            }
            return nil
        }
        return visit(screen["ui_components"], at: JSONPointer.join(pointer, "ui_components"))
    }

    /// The id of a component that has none: from its screen's id and its 1-based place
    /// (`<screen id>-3`, `<screen id>-3-1` for the first child of the third component).
    public static func generatedComponentId(screenId: String, path: [Int]) -> String {
        ([screenId] + path.map(String.init)).joined(separator: "-")
    }
}
