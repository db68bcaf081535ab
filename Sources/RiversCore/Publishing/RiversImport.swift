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

    public init(screens: [Screen], families: [Family], warnings: [FieldError] = [], single: Bool = false) {
        self.screens = screens
        self.families = families
        self.warnings = warnings
        self.single = single
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
        var screens: [Screen] = []
        var screenIds: [String: String] = [:]
        var familyOrder: [String] = []
        var cellStylesByFamily: [String: [String]] = [:]
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
            }
            screen.uiComponents.walk(at: "") { component, _ in
                let bodyStyles = (component.styles["cell_body_styles"]?.arrayValue ?? []).compactMap(\.stringValue)
                for style in component.cellStyles + bodyStyles where !cellStylesByFamily[screen.family]!.contains(style) {
                    cellStylesByFamily[screen.family]!.append(style)
                }
            }
            screens.append(screen)
        }
        if !problems.isEmpty { throw problems.failure }
        let families = familyOrder.map { id in
            Family(
                id: id, name: id, referenceSize: defaultReferenceSize, insets: Insets(), interitemSpacing: 0, lineSpacing: 0,
                cellStyles: (cellStylesByFamily[id] ?? []).map {
                    CellStyle(id: $0, width: defaultCellStyleWidth, height: defaultCellStyleHeight)
                })
        }
        return ImportedApp(screens: screens, families: families, warnings: problems.warnings, single: single)
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
