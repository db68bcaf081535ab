/// The field types a Zapp plugin manifest may declare.
///
/// The first group is the UI-builder vocabulary (spec + every type the fixture manifests use).
/// The legacy group is what the Zappifest tool wrote into top-level `custom_configuration_fields`
/// (`text`, `textarea`, `dropdown`, `tags`, `colorpicker`); those are accepted only there.
public enum ManifestFieldType: String, Sendable, Hashable, CaseIterable, Codable {
    case textInput = "text_input"
    case textArea = "text_area"
    case numberInput = "number_input"
    case select
    case multiSelect = "multi_select"
    case tagSelect = "tag_select"
    case colorPicker = "color_picker"
    case colorPickerRGBA = "color_picker_rgba"
    case switchField = "switch"
    case checkbox
    case hidden
    case uploader
    case iosFontSelector = "ios_font_selector"
    case androidFontSelector = "android_font_selector"
    case tvosFontSelector = "tvos_font_selector"
    case fontSelector = "font_selector"
    case navBarSelector = "nav_bar_selector"
    case preloadPluginsSelector = "preload_plugins_selector"
    case screenSelector = "screen_selector"
    /// A nested form (`form_configuration.sections[].fields`); its value is an object keyed by
    /// the nested sections' keys.
    case textStyle = "text_style"
    // Legacy Zappifest types (top-level `custom_configuration_fields` only).
    case text
    case textarea
    case dropdown
    case tags
    case colorpicker

    /// Types only accepted in the legacy top-level `custom_configuration_fields`.
    public var isLegacy: Bool {
        switch self {
        case .text, .textarea, .dropdown, .tags, .colorpicker: return true
        default: return false
        }
    }

    /// Types whose value is picked from `options`.
    public var usesOptions: Bool {
        switch self {
        case .select, .multiSelect, .tagSelect, .dropdown, .tags: return true
        default: return false
        }
    }
}

/// One choice of a select-like field. Plain-string options (`["a", "b"]`) read as `{text: "a", value: "a"}`.
public struct ManifestOption: Sendable, Hashable, Codable {
    public var text: String
    public var value: JSONValue

    public init(text: String, value: JSONValue) {
        self.text = text
        self.value = value
    }
}

/// One entry of a field's `conditional_fields`: the field is shown when the field `section/key`
/// has `value` (or one of `value` when it is an array). An entry may also carry `options`: the
/// choices offered while the condition holds (conditional options, as in the Zappifest example).
public struct ManifestCondition: Sendable, Hashable {
    public var section: String
    public var key: String
    public var value: JSONValue { didSet { wanted = Self.texts(value) } }
    public var options: [ManifestOption]?
    /// The plain texts of `value` (or of its elements): what a field's value is compared with,
    /// made once (a condition may list thousands).
    public private(set) var wanted: Set<String>

    public init(section: String, key: String, value: JSONValue, options: [ManifestOption]? = nil) {
        self.section = section
        self.key = key
        self.value = value
        self.options = options
        self.wanted = Self.texts(value)
    }

    /// The plain texts of a value, or of its elements when it is an array (`true` is "true").
    public static func texts(_ value: JSONValue?) -> Set<String> {
        guard let value else { return [] }
        return Set((value.arrayValue ?? [value]).compactMap(PluginColor.plainText))
    }
}

/// A `text_style` field's nested form section (`form_configuration.sections[]`).
public struct ManifestFormSection: Sendable, Hashable {
    public var key: String
    public var label: String?
    public var items: [ManifestItem]

    public init(key: String, label: String?, items: [ManifestItem]) {
        self.key = key
        self.label = label
        self.items = items
    }
}

/// The JSON form a field's values are written in, in screens and in the published document: the
/// form its plugin's own code reads (docs/spec/plugin-values.md, one rule per field type).
public enum PluginValueForm: String, Sendable, Hashable, Codable {
    /// `switch`, `checkbox`: a JSON boolean.
    case boolean
    /// `switch`, `checkbox` whose manifest states its value as `"1"`/`"0"`: `"1"` or `"0"`.
    case oneOrZero = "one_or_zero"
    /// `number_input` whose manifest's initial value is a JSON number: a number.
    case number
    /// `number_input` otherwise: the number's digits as a string (`"18"`).
    case numberText = "number_text"
    /// `select`, `dropdown`, `tag_select`: one option value (a plain string for string options).
    case choice
    /// `multi_select`, `tags`, a `select` with `multiple`: an array of option values.
    case choices
    /// Every other type: the value as the type says (text, colour, address, screen id, object…).
    case asTyped = "as_typed"
}

/// One input of a plugin manifest.
public struct ManifestField: Sendable, Hashable {
    public var key: String
    public var type: ManifestFieldType
    public var label: String?
    public var placeholder: String?
    /// `initial_value` (or the legacy `default` when there is no `initial_value`), normalised to the field's type.
    public var initialValue: JSONValue?
    /// The form the manifest's `initial_value` (or legacy `default`) states for the values, by its
    /// JSON type as written (`"0"` for a checkbox, `68` for a number); `nil` without one. See `valueForm`.
    public var statedForm: PluginValueForm?
    public var options: [ManifestOption]
    public var mandatory: Bool
    public var conditions: [ManifestCondition]
    /// `rules: "all_conditions"` → every condition must hold; otherwise any one is enough.
    public var matchAllConditions: Bool
    /// `multiple: true` on a `select`/`dropdown` makes it a multiple choice.
    public var multiple: Bool
    /// Nested sections of a `text_style` field.
    public var formSections: [ManifestFormSection]?
    /// The manifest's own JSON for this field (normalised), for anything not modelled here.
    public var raw: JSONValue

    public init(
        key: String, type: ManifestFieldType, label: String? = nil, placeholder: String? = nil,
        initialValue: JSONValue? = nil, options: [ManifestOption] = [], mandatory: Bool = false,
        conditions: [ManifestCondition] = [], matchAllConditions: Bool = false, multiple: Bool = false,
        formSections: [ManifestFormSection]? = nil, raw: JSONValue = .emptyObject
    ) {
        self.key = key
        self.type = type
        self.label = label
        self.placeholder = placeholder
        self.initialValue = initialValue
        self.options = options
        self.mandatory = mandatory
        self.conditions = conditions
        self.matchAllConditions = matchAllConditions
        self.multiple = multiple
        self.formSections = formSections
        self.raw = raw
    }

    /// `options` plus every conditional option set, without repeating a value.
    public var allOptions: [ManifestOption] {
        guard conditions.contains(where: { $0.options != nil }) else { return options }
        var out = options
        var seen = Set(options.map(\.value))
        for condition in conditions {
            for option in condition.options ?? [] where seen.insert(option.value).inserted {
                out.append(option)
            }
        }
        return out
    }
}

/// A group of fields shown together in the editor (`{group: true, label, folded, fields}`).
public struct ManifestGroup: Sendable, Hashable {
    public var label: String?
    public var folded: Bool
    public var items: [ManifestItem]

    public init(label: String?, folded: Bool, items: [ManifestItem]) {
        self.label = label
        self.folded = folded
        self.items = items
    }
}

/// A field or a group, in manifest order.
public enum ManifestItem: Sendable, Hashable {
    case field(ManifestField)
    case group(ManifestGroup)

    /// Every field, groups flattened, in order.
    public var fields: [ManifestField] {
        switch self {
        case .field(let f): return [f]
        case .group(let g): return g.items.flatMap(\.fields)
        }
    }
}

extension Array where Element == ManifestItem {
    /// Every field, groups flattened, in order.
    public var allFields: [ManifestField] { flatMap(\.fields) }
}
