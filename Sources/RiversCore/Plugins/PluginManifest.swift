/// A Zapp plugin manifest: what a screen plugin or a component plugin declares about itself and
/// the values a screen or component using it carries (`general`, `styles`, `data`, …).
///
/// Parsing is pure and reports every problem at once, each with a JSON pointer into the manifest.
/// Real manifests are loose (`"true"` for a boolean, `"18"` for a number); those are accepted and
/// normalised in `raw`, and each normalisation is recorded in `notes`.
public struct PluginManifest: Sendable, Hashable {
    /// The manifest as given, with loose values normalised (see `notes`). Store and serve this.
    public var raw: JSONValue
    public var identifier: String
    public var name: String
    public var type: String
    public var manifestVersion: String
    public var description: String
    public var authorName: String
    public var authorEmail: String
    public var minZappSDK: String
    public var platform: String?
    public var uiBuilderSupport: Bool
    /// `"screen": true`: selectable as a screen; its screens get `type` = `identifier`.
    public var isScreen: Bool
    /// `characteristics.can_have_components`.
    public var canHaveComponents: Bool
    /// The UI sections present in the manifest (`general`, `styles`, `data`, `rules`, `advertising`,
    /// `assets`, `localizations`, `hooks`), each with its fields and groups in order.
    public var sections: [String: [ManifestItem]]
    /// The legacy top-level `custom_configuration_fields` (plugin configuration, not screen values).
    public var customConfigurationFields: [ManifestItem]
    /// What was normalised, one entry per value, located by pointer (e.g. `/general/fields/0/initial_value`).
    public var notes: [FieldError]

    /// `type` is `ui_component`: usable as a component whose `component_type` is `identifier`.
    public var isUIComponent: Bool { type == "ui_component" }

    // MARK: Rules

    /// The UI sections, in the order an editor shows them.
    public static let sectionNames = ["general", "styles", "data", "rules", "advertising", "assets", "localizations", "hooks"]

    /// Keys a manifest must have (the Zappifest tool's mandatory list). `ui_builder_support` is the
    /// one exception in practice: when it is missing it reads as `false` with a note (the developer
    /// documentation calls it optional and its own example manifest omits it).
    public static let requiredKeys = [
        "author_name", "author_email", "manifest_version", "name", "description", "identifier", "type",
        "min_zapp_sdk", "ui_builder_support",
    ]

    /// Every top-level key accepted: the Zappifest tool's mandatory and optional lists, the spec, and
    /// every key the fixture manifests use.
    public static let knownKeys: Set<String> = Set(requiredKeys).union([
        // Zappifest optional keys
        "api", "platform", "dependency_name", "dependency_version", "dependency_repository_url",
        "deprecated_since_zapp_sdk", "unsupported_since_zapp_sdk", "custom_configuration_fields", "react_native",
        "extra_dependencies", "project_dependencies", "npm_dependencies", "scheme", "data_types", "react_bundle_url",
        "thumbnail", "screenshots", "preview", "about", "general", "assets", "styles", "rules", "data", "advertising",
        "screen", "supported_nav_items", "max_nav_items", "max_items_per_type", "zapp_configuration", "summary",
        "cover_image", "guide", "core_plugin", "configuration_panel_disabled", "export", "import", "hooks", "preload",
        "postload", "supports_offline", "targets", "whitelisted_account_ids",
        // spec and fixture manifests
        "localizations", "characteristics", "ui_frameworks",
    ])

    /// Condition targets every screen or component document carries even when the manifest does not
    /// declare them (the Zappifest example conditions on `styles/family`).
    public static let implicitConditionKeys: Set<String> = ["styles/family", "data/source", "data/type"]

    /// Identifiers appear in URL paths (`/plugins/{identifier}`) and screen types, so they keep to
    /// an alphabet that needs no escaping: `[A-Za-z0-9][A-Za-z0-9._-]{0,99}`.
    public static func isValidIdentifier(_ identifier: String) -> Bool {
        let bytes = identifier.utf8
        guard let first = bytes.first, bytes.count <= 100, IdentifierRules.isToken(first), first != UInt8(ascii: "."),
              first != UInt8(ascii: "_"), first != UInt8(ascii: "-")
        else { return false }
        return bytes.allSatisfy(IdentifierRules.isToken)
    }

    /// Screen `type` values with a meaning of their own; a plugin identifier may not take them.
    public static let reservedIdentifiers: Set<String> = ["general_content", "favorites"]

    // MARK: Parsing

    /// Parses and validates a manifest; throws every problem found.
    public static func parse(_ json: JSONValue) throws(ValidationFailure) -> PluginManifest {
        var parser = PluginManifestParser()
        let manifest = parser.parse(json)
        guard let manifest, parser.log.isEmpty else { throw parser.log.failure }
        return manifest
    }

    /// Parses JSON text then the manifest. Invalid JSON gives one error at pointer `""` whose message
    /// names the line and column.
    public static func parse(bytes: some Collection<UInt8>) throws(ValidationFailure) -> PluginManifest {
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes)
        } catch {
            throw ValidationFailure([FieldError("", error.description)])
        }
        return try parse(json)
    }

    // MARK: Lookup

    /// Every field of a section, groups flattened, in order (empty for a section the manifest lacks).
    public func fields(in section: String) -> [ManifestField] {
        sections[section]?.allFields ?? []
    }

    public func field(section: String, key: String) -> ManifestField? {
        fields(in: section).first { $0.key == key }
    }

    /// The sections present, in `sectionNames` order.
    public var presentSections: [String] {
        Self.sectionNames.filter { sections[$0] != nil }
    }
}

// MARK: - Parser

struct PluginManifestParser {
    typealias Token = PluginJSON.Token

    enum Context: Equatable {
        case section(String)
        case configuration  // legacy top-level custom_configuration_fields
        case nested(String)  // inside a text_style field of this section
    }

    let log = Problems()
    var edits: [(path: [Token], value: JSONValue)] = []
    var references: [(path: [Token], section: String, key: String)] = []

    mutating func parse(_ json: JSONValue) -> PluginManifest? {
        guard case .object(let top) = json else {
            log.error([], "a plugin manifest must be a JSON object, got \(json.typeName)")
            return nil
        }

        for key in top.keys.sorted() where !PluginManifest.knownKeys.contains(key) {
            log.error([.key(key)], "unknown top-level key \"\(key)\"")
        }

        let identifier = requiredString(top, "identifier", nonEmpty: true)
        let name = requiredString(top, "name", nonEmpty: true)
        let type = requiredString(top, "type", nonEmpty: true)
        let manifestVersion = requiredString(top, "manifest_version", nonEmpty: true)
        let description = requiredString(top, "description", nonEmpty: false)
        let authorName = requiredString(top, "author_name", nonEmpty: false)
        let authorEmail = requiredString(top, "author_email", nonEmpty: false)
        let minZappSDK = requiredString(top, "min_zapp_sdk", nonEmpty: false)

        if let identifier {
            if !PluginManifest.isValidIdentifier(identifier) {
                log.error([.key("identifier")], "must be 1 to 100 letters, digits, '.', '_' or '-', starting with a letter or digit")
            }
            if PluginManifest.reservedIdentifiers.contains(identifier) {
                log.error([.key("identifier")], "\"\(identifier)\" is reserved for built-in screens")
            }
        }

        var platform: String?
        switch top["platform"] {
        case nil, .null?: break
        case .string(let s)?: platform = s
        case let other?: log.error([.key("platform")], "must be a string, got \(other.typeName)")
        }

        let uiBuilderSupport: Bool
        if top["ui_builder_support"] == nil {
            log.note([.key("ui_builder_support")], "missing; read as false")
            uiBuilderSupport = false
        } else {
            uiBuilderSupport = looseBool(top["ui_builder_support"]!, [.key("ui_builder_support")]) ?? false
        }

        let isScreen = top["screen"].flatMap { $0.isNull ? nil : looseBool($0, [.key("screen")]) } ?? false

        var canHaveComponents = false
        switch top["characteristics"] {
        case nil, .null?: break
        case .object(let c)?:
            if let v = c["can_have_components"] {
                canHaveComponents = looseBool(v, [.key("characteristics"), .key("can_have_components")]) ?? false
            }
        case let other?:
            log.error([.key("characteristics")], "must be an object, got \(other.typeName)")
        }

        var sections: [String: [ManifestItem]] = [:]
        for section in PluginManifest.sectionNames {
            guard let value = top[section] else { continue }
            sections[section] = parseSection(section, value)
        }

        var configuration: [ManifestItem] = []
        switch top["custom_configuration_fields"] {
        case nil, .null?: break
        case .array(let items)?:
            var seen: [String: String] = [:]
            configuration = parseItems(items, path: [.key("custom_configuration_fields")], context: .configuration, seen: &seen)
        case let other?:
            log.error([.key("custom_configuration_fields")], "must be an array of fields, got \(other.typeName)")
        }

        // Conditions must point at a field that exists (each section's keys gathered once: a
        // manifest may hold thousands of conditions and of fields).
        let keys = sections.mapValues { Set($0.allFields.map(\.key)) }
        for ref in references {
            let full = "\(ref.section)/\(ref.key)"
            let exists = keys[ref.section]?.contains(ref.key) ?? false
            if !exists && !PluginManifest.implicitConditionKeys.contains(full) {
                log.error(ref.path, "\"\(full)\" does not name a field of this manifest")
            }
        }

        // Every edit in one pass (one by one, each copied the arrays on its path again).
        let raw = PluginJSON.setting(edits, in: json)

        guard let identifier, let name, let type, let manifestVersion, let description, let authorName,
            let authorEmail, let minZappSDK
        else { return nil }
        return PluginManifest(
            raw: raw, identifier: identifier, name: name, type: type, manifestVersion: manifestVersion,
            description: description, authorName: authorName, authorEmail: authorEmail, minZappSDK: minZappSDK,
            platform: platform, uiBuilderSupport: uiBuilderSupport, isScreen: isScreen,
            canHaveComponents: canHaveComponents, sections: sections, customConfigurationFields: configuration,
            notes: log.warnings)
    }

    // MARK: Scalars

    mutating func requiredString(_ top: [String: JSONValue], _ key: String, nonEmpty: Bool) -> String? {
        let path: [Token] = [.key(key)]
        switch top[key] {
        case nil:
            log.error(path, "\"\(key)\" is required")
            return nil
        case .string(let s)?:
            if nonEmpty && s.trimmingCharacters(in: .whitespaces).isEmpty {
                log.error(path, "must not be empty")
                return nil
            }
            let limit = key == "name" ? Limits.maxNameLength : Limits.maxStringLength
            if s.unicodeScalars.count > limit {
                log.error(path, "must be at most \(limit) characters")
                return nil
            }
            return s
        case .number(let n)?:
            let s = PluginJSON.numberText(n)
            normalise(path, .string(s), "the number \(s) was read as the string \"\(s)\"")
            return s
        case let other?:
            log.error(path, "must be a string, got \(other.typeName)")
            return nil
        }
    }

    /// A boolean, or `"true"`/`"false"` (normalised). Anything else is an error.
    mutating func looseBool(_ value: JSONValue, _ path: [Token]) -> Bool? {
        if case .bool(let b) = value { return b }
        if let b = PluginJSON.looseBool(value) {
            normalise(path, .bool(b), "the string \(PluginJSON.describe(value)) was read as the boolean \(b)")
            return b
        }
        log.error(path, "must be a boolean, got \(PluginJSON.got(value))")
        return nil
    }

    /// A string, or a number (normalised to a string). Anything else is an error.
    mutating func optionalText(_ o: [String: JSONValue], _ key: String, _ path: [Token]) -> String? {
        switch o[key] {
        case nil, .null?: return nil
        case .string(let s)?: return s
        case .number(let n)?:
            let s = PluginJSON.numberText(n)
            normalise(path + [.key(key)], .string(s), "the number \(s) was read as the string \"\(s)\"")
            return s
        case let other?:
            log.error(path + [.key(key)], "must be a string, got \(other.typeName)")
            return nil
        }
    }

    mutating func normalise(_ path: [Token], _ value: JSONValue, _ note: String) {
        edits.append((path, value))
        log.note(path, note)
    }

    // MARK: Sections and items

    mutating func parseSection(_ name: String, _ value: JSONValue) -> [ManifestItem] {
        let path: [Token] = [.key(name)]
        guard case .object(let o) = value else {
            log.error(path, "a section must be an object like {\"fields\": [...]}, got \(value.typeName)")
            return []
        }
        if o["fields"] != nil && o["custom_configuration_fields"] != nil {
            log.error(path, "use either \"fields\" or the legacy \"custom_configuration_fields\", not both")
            return []
        }
        let listKey = o["fields"] != nil ? "fields" : "custom_configuration_fields"
        switch o[listKey] {
        case nil, .null?: return []
        case .array(let items)?:
            var seen: [String: String] = [:]
            return parseItems(items, path: path + [.key(listKey)], context: .section(name), seen: &seen)
        case let other?:
            log.error(path + [.key(listKey)], "must be an array of fields, got \(other.typeName)")
            return []
        }
    }

    mutating func parseItems(_ items: [JSONValue], path: [Token], context: Context, seen: inout [String: String]) -> [ManifestItem] {
        var out: [ManifestItem] = []
        for (i, item) in items.enumerated() {
            if let parsed = parseItem(item, path: path + [.index(i)], context: context, seen: &seen) {
                out.append(parsed)
            }
        }
        return out
    }

    mutating func parseItem(_ value: JSONValue, path: [Token], context: Context, seen: inout [String: String]) -> ManifestItem? {
        guard case .object(let o) = value else {
            log.error(path, "a field or group must be an object, got \(value.typeName)")
            return nil
        }
        if let g = o["group"], !g.isNull {
            switch looseBool(g, path + [.key("group")]) {
            case true?: return parseGroup(o, path: path, context: context, seen: &seen)
            case false?: break
            case nil: return nil  // reported; reading it as a field would only add noise
            }
        }
        return parseField(o, path: path, context: context, seen: &seen).map(ManifestItem.field)
    }

    mutating func parseGroup(_ o: [String: JSONValue], path: [Token], context: Context, seen: inout [String: String]) -> ManifestItem {
        let label = optionalText(o, "label", path)
        let folded = o["folded"].flatMap { looseBool($0, path + [.key("folded")]) } ?? false
        var items: [ManifestItem] = []
        switch o["fields"] {
        case .array(let list)?:
            items = parseItems(list, path: path + [.key("fields")], context: context, seen: &seen)
        case nil:
            log.error(path + [.key("fields")], "a group needs \"fields\"")
        case let other?:
            log.error(path + [.key("fields")], "must be an array of fields, got \(other.typeName)")
        }
        return .group(ManifestGroup(label: label, folded: folded, items: items))
    }

    mutating func parseField(_ o: [String: JSONValue], path: [Token], context: Context, seen: inout [String: String]) -> ManifestField? {
        let firstEdit = edits.count
        // key
        var key: String?
        switch o["key"] {
        case nil:
            log.error(path + [.key("key")], "a field needs a \"key\"")
        case .string(let s)?:
            if s.trimmingCharacters(in: .whitespaces).isEmpty {
                log.error(path + [.key("key")], "must not be empty")
            } else {
                key = s
            }
        case let other?:
            log.error(path + [.key("key")], "must be a string, got \(other.typeName)")
        }
        if let key {
            let scope = context == .configuration ? (o["section"]?.stringValue ?? "") + "/" + key : key
            let here = PluginJSON.pointer(path)
            if let first = seen[scope] {
                log.error(path + [.key("key")], "duplicate key \"\(key)\" (already declared at \(first))")
            } else {
                seen[scope] = here
            }
        }

        // type
        var type: ManifestFieldType?
        switch o["type"] {
        case nil:
            if context == .section("localizations") {
                type = .textInput
                log.note(path + [.key("type")], "missing; a localization reads as text_input")
            } else {
                log.error(path + [.key("type")], "a field needs a \"type\"")
            }
        case .string(let s)?:
            if let t = ManifestFieldType(rawValue: s) {
                if t.isLegacy && context != .configuration {
                    log.error(path + [.key("type")], "\"\(s)\" is a legacy type, only accepted in the top-level custom_configuration_fields")
                } else {
                    type = t
                }
            } else {
                let known = ManifestFieldType.allCases.filter { !$0.isLegacy }.map(\.rawValue).joined(separator: ", ")
                log.error(path + [.key("type")], "unknown field type \"\(s)\"; known types: \(known)")
            }
        case let other?:
            log.error(path + [.key("type")], "must be a string, got \(other.typeName)")
        }

        let label = optionalText(o, "label", path)
        let placeholder = optionalText(o, "placeholder", path)
        let mandatory = o["mandatory"].flatMap { $0.isNull ? nil : looseBool($0, path + [.key("mandatory")]) } ?? false
        let multiple = o["multiple"].flatMap { $0.isNull ? nil : looseBool($0, path + [.key("multiple")]) } ?? false
        let options = o["options"].flatMap { $0.isNull ? nil : parseOptions($0, path: path + [.key("options")]) }
        let conditions = parseConditions(o["conditional_fields"], path: path + [.key("conditional_fields")], context: context)
        let matchAll = o["rules"]?.stringValue == "all_conditions"

        var formSections: [ManifestFormSection]?
        if type == .textStyle {
            formSections = parseFormConfiguration(o["form_configuration"], path: path + [.key("form_configuration")], context: context)
        }

        guard let key, let type else { return nil }

        // Rules on particular types.
        let section: String? = {
            switch context {
            case .section(let s), .nested(let s): return s
            case .configuration: return nil
            }
        }()
        if type.usesOptions && context != .configuration && section != "data" {
            // Only when none are given at all: malformed options are reported where they are.
            let given: Bool = {
                switch o["options"] {
                case nil, .null?: return false
                case .array(let a)?: return !a.isEmpty
                default: return true
                }
            }()
            let hasConditionalOptions = conditions.contains { $0.options != nil }
            if !given && !hasConditionalOptions {
                log.error(path + [.key("options")], "a \(type.rawValue) field needs \"options\"")
            }
        }
        if type == .navBarSelector && key != "nav_bar_id" {
            log.error(path + [.key("key")], "a nav_bar_selector field must use the key \"nav_bar_id\"")
        }
        if type == .preloadPluginsSelector {
            if context != .section("hooks") {
                log.error(path + [.key("type")], "preload_plugins_selector is only allowed in the hooks section")
            }
            if key != "preload_plugins" {
                log.error(path + [.key("key")], "a preload_plugins_selector field must use the key \"preload_plugins\"")
            }
        }

        var field = ManifestField(
            key: key, type: type, label: label, placeholder: placeholder, initialValue: nil, options: options ?? [],
            mandatory: mandatory, conditions: conditions, matchAllConditions: matchAll, multiple: multiple,
            formSections: formSections, raw: .object(o))

        // initial_value (or the legacy default)
        let valueKey: String? = o["initial_value"] != nil ? "initial_value" : (o["default"] != nil ? "default" : nil)
        if type == .hidden && (valueKey == nil || o[valueKey!]!.isNull) {
            log.error(path + [.key("initial_value")], "a hidden field needs an initial_value")
        }
        if let valueKey, let given = o[valueKey] {
            // The initial value as written decides the form of the values (`valueForm`): a number
            // written "18" is text, a checkbox written "0" is "1"/"0".
            field.statedForm = ManifestField.form(of: field.valueKind, stated: given)
            let (value, note) = field.normalized(given)
            if context == .configuration {
                // Legacy plugin configuration: read loosely, never rewritten, never rejected.
                field.initialValue = field.valueKind == .number || field.valueKind == .bool ? given : value
            } else {
                if let note { normalise(path + [.key(valueKey)], value, note) }
                field.initialValue = value
                for problem in field.check(value, pointer: PluginJSON.pointer(path + [.key(valueKey)])) {
                    log.error(problem.pointer, problem.message)
                }
            }
        }
        // The field's own JSON carries the same normalisations as the manifest's.
        for edit in edits[firstEdit...] where edit.path.starts(with: path) {
            field.raw = PluginJSON.setting(edit.value, at: edit.path.dropFirst(path.count), in: field.raw)
        }
        return field
    }

    mutating func parseOptions(_ value: JSONValue, path: [Token]) -> [ManifestOption]? {
        guard case .array(let list) = value else {
            log.error(path, "options must be an array of {\"text\", \"value\"} or of strings, got \(value.typeName)")
            return nil
        }
        var out: [ManifestOption] = []
        for (i, item) in list.enumerated() {
            let p = path + [.index(i)]
            switch item {
            case .string(let s):
                out.append(ManifestOption(text: s, value: .string(s)))
            case .number(let n):
                out.append(ManifestOption(text: PluginJSON.numberText(n), value: item))
            case .object(let o):
                let text = optionalText(o, "text", p)
                if o["text"] == nil || o["text"]!.isNull {
                    log.error(p + [.key("text")], "an option needs a \"text\"")
                }
                switch o["value"] {
                case .string?, .number?, .bool?:
                    if let text { out.append(ManifestOption(text: text, value: o["value"]!)) }
                case nil, .null?:
                    log.error(p + [.key("value")], "an option needs a \"value\"")
                case let other?:
                    log.error(p + [.key("value")], "an option value must be a string, number or boolean, got \(other.typeName)")
                }
            default:
                log.error(p, "an option must be {\"text\", \"value\"} or a string, got \(item.typeName)")
            }
        }
        return out
    }

    mutating func parseConditions(_ value: JSONValue?, path: [Token], context: Context) -> [ManifestCondition] {
        guard let value, !value.isNull else { return [] }
        guard case .array(let list) = value else {
            log.error(path, "conditional_fields must be an array, got \(value.typeName)")
            return []
        }
        var out: [ManifestCondition] = []
        for (i, item) in list.enumerated() {
            let p = path + [.index(i)]
            guard case .object(let o) = item else {
                log.error(p, "a condition must be an object {\"key\": \"section/key\", \"condition_value\": …}, got \(item.typeName)")
                continue
            }
            var target: (String, String)?
            switch o["key"] {
            case .string(let s)?:
                let parts = s.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                if parts.count == 2, PluginManifest.sectionNames.contains(parts[0]), !parts[1].isEmpty {
                    target = (parts[0], parts[1])
                } else {
                    log.error(p + [.key("key")], "\"\(s)\" must be \"section/key\" with section one of \(PluginManifest.sectionNames.joined(separator: ", "))")
                }
            case nil:
                log.error(p + [.key("key")], "a condition needs a \"key\" (\"section/key\")")
            case let other?:
                log.error(p + [.key("key")], "must be a string \"section/key\", got \(other.typeName)")
            }
            let conditionValue = o["condition_value"]
            if conditionValue == nil {
                log.error(p + [.key("condition_value")], "a condition needs a \"condition_value\"")
            }
            let options = o["options"].flatMap { $0.isNull ? nil : parseOptions($0, path: p + [.key("options")]) }
            if let (section, key) = target, let conditionValue {
                if case .section = context {
                    references.append((p + [.key("key")], section, key))
                }
                out.append(ManifestCondition(section: section, key: key, value: conditionValue, options: options))
            }
        }
        return out
    }

    mutating func parseFormConfiguration(_ value: JSONValue?, path: [Token], context: Context) -> [ManifestFormSection]? {
        guard case .object(let o)? = value, case .array(let list)? = o["sections"] else {
            log.error(path, "a text_style field needs \"form_configuration\": {\"sections\": [...]}")
            return nil
        }
        let outer: String = {
            switch context {
            case .section(let s), .nested(let s): return s
            case .configuration: return ""
            }
        }()
        var out: [ManifestFormSection] = []
        var sectionKeys: Set<String> = []
        for (i, item) in list.enumerated() {
            let p = path + [.key("sections"), .index(i)]
            guard case .object(let s) = item else {
                log.error(p, "a form section must be an object, got \(item.typeName)")
                continue
            }
            guard case .string(let key)? = s["key"], !key.isEmpty else {
                log.error(p + [.key("key")], "a form section needs a \"key\"")
                continue
            }
            if !sectionKeys.insert(key).inserted {
                log.error(p + [.key("key")], "duplicate form section key \"\(key)\"")
            }
            let label = optionalText(s, "label", p)
            var items: [ManifestItem] = []
            switch s["fields"] {
            case .array(let fields)?:
                var seen: [String: String] = [:]
                items = parseItems(fields, path: p + [.key("fields")], context: .nested(outer), seen: &seen)
            default:
                log.error(p + [.key("fields")], "a form section needs an array of \"fields\"")
            }
            out.append(ManifestFormSection(key: key, label: label, items: items))
        }
        return out
    }
}
