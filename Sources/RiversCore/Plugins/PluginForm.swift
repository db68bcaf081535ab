/// What an editor needs to render a form for any plugin: per section, its fields and groups in
/// manifest order, with normalised initial values and options as `{text, value}`.
///
/// JSON (snake_case, every key always written, `null` when absent):
/// `{"identifier", "name", "type", "screen", "ui_component", "can_have_components",
///   "sections": [{"name": "general", "fields": [item…]}], "custom_configuration_fields": [item…]}`
/// where an item is a field
/// `{"key", "type", "label", "placeholder", "initial_value", "options": [{"text", "value"}], "mandatory",
///   "conditions": [{"section", "key", "value"}], "conditions_match": "any"|"all",
///   "conditional_options": [{"section", "key", "value", "options"}], "form_sections": null|[{"key", "label", "fields"}],
///   "value_form": "boolean"|"one_or_zero"|"number"|"number_text"|"choice"|"choices"|"as_typed"}`
/// (`value_form`: the JSON form the field's values are written in, docs/spec/plugin-values.md)
/// or a group `{"group": true, "label", "folded", "fields": [item…]}`.
public struct PluginForm: Sendable, Hashable, Codable {
    public var identifier: String
    public var name: String
    public var type: String
    public var screen: Bool
    public var uiComponent: Bool
    public var canHaveComponents: Bool
    public var sections: [PluginFormSection]
    public var customConfigurationFields: [PluginFormItem]

    enum CodingKeys: String, CodingKey {
        case identifier, name, type, screen, sections
        case uiComponent = "ui_component"
        case canHaveComponents = "can_have_components"
        case customConfigurationFields = "custom_configuration_fields"
    }
}

public struct PluginFormSection: Sendable, Hashable, Codable {
    public var name: String
    public var fields: [PluginFormItem]
}

public enum PluginFormItem: Sendable, Hashable, Codable {
    case field(PluginFormField)
    case group(PluginFormGroup)

    private enum Probe: String, CodingKey { case group }

    public init(from decoder: any Decoder) throws {
        let probe = try decoder.container(keyedBy: Probe.self)
        if (try? probe.decodeIfPresent(Bool.self, forKey: .group)) == true {
            self = .group(try PluginFormGroup(from: decoder))
        } else {
            self = .field(try PluginFormField(from: decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .field(let f): try f.encode(to: encoder)
        case .group(let g): try g.encode(to: encoder)
        }
    }
}

public struct PluginFormGroup: Sendable, Hashable, Codable {
    public var label: String?
    public var folded: Bool
    public var fields: [PluginFormItem]

    enum CodingKeys: String, CodingKey { case group, label, folded, fields }

    public init(label: String?, folded: Bool, fields: [PluginFormItem]) {
        self.label = label
        self.folded = folded
        self.fields = fields
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        label = try c.decodeIfPresent(String.self, forKey: .label)
        folded = try c.decodeIfPresent(Bool.self, forKey: .folded) ?? false
        fields = try c.decodeIfPresent([PluginFormItem].self, forKey: .fields) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(true, forKey: .group)
        try c.encode(label, forKey: .label)
        try c.encode(folded, forKey: .folded)
        try c.encode(fields, forKey: .fields)
    }
}

public struct PluginFormCondition: Sendable, Hashable, Codable {
    public var section: String
    public var key: String
    public var value: JSONValue
}

public struct PluginFormConditionalOptions: Sendable, Hashable, Codable {
    public var section: String
    public var key: String
    public var value: JSONValue
    public var options: [ManifestOption]
}

public struct PluginFormNestedSection: Sendable, Hashable, Codable {
    public var key: String
    public var label: String?
    public var fields: [PluginFormItem]

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(key, forKey: .key)
        try c.encode(label, forKey: .label)
        try c.encode(fields, forKey: .fields)
    }
}

public struct PluginFormField: Sendable, Hashable, Codable {
    public var key: String
    public var type: String
    public var label: String?
    public var placeholder: String?
    /// Normalised; `null` when the manifest gives none.
    public var initialValue: JSONValue
    public var options: [ManifestOption]
    public var mandatory: Bool
    public var conditions: [PluginFormCondition]
    /// `"all"` when every condition must hold (`rules: "all_conditions"`), else `"any"`.
    public var conditionsMatch: String
    public var conditionalOptions: [PluginFormConditionalOptions]
    /// Nested sections of a `text_style` field; `null` otherwise.
    public var formSections: [PluginFormNestedSection]?
    /// The JSON form the field's values are written in (the editor writes them so).
    public var valueForm: PluginValueForm

    enum CodingKeys: String, CodingKey {
        case key, type, label, placeholder, options, mandatory, conditions
        case valueForm = "value_form"
        case initialValue = "initial_value"
        case conditionsMatch = "conditions_match"
        case conditionalOptions = "conditional_options"
        case formSections = "form_sections"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        key = try c.decode(String.self, forKey: .key)
        type = try c.decode(String.self, forKey: .type)
        label = try c.decodeIfPresent(String.self, forKey: .label)
        placeholder = try c.decodeIfPresent(String.self, forKey: .placeholder)
        initialValue = try c.decodeIfPresent(JSONValue.self, forKey: .initialValue) ?? .null
        options = try c.decodeIfPresent([ManifestOption].self, forKey: .options) ?? []
        mandatory = try c.decodeIfPresent(Bool.self, forKey: .mandatory) ?? false
        conditions = try c.decodeIfPresent([PluginFormCondition].self, forKey: .conditions) ?? []
        conditionsMatch = try c.decodeIfPresent(String.self, forKey: .conditionsMatch) ?? "any"
        conditionalOptions = try c.decodeIfPresent([PluginFormConditionalOptions].self, forKey: .conditionalOptions) ?? []
        formSections = try c.decodeIfPresent([PluginFormNestedSection].self, forKey: .formSections)
        valueForm = try c.decodeIfPresent(PluginValueForm.self, forKey: .valueForm) ?? .asTyped
    }

    init(_ f: ManifestField) {
        key = f.key
        type = f.type.rawValue
        label = f.label
        placeholder = f.placeholder
        initialValue = f.startingValue ?? .null
        options = f.options
        mandatory = f.mandatory
        conditions = f.conditions.map { PluginFormCondition(section: $0.section, key: $0.key, value: $0.value) }
        conditionsMatch = f.matchAllConditions ? "all" : "any"
        conditionalOptions = f.conditions.compactMap { c in
            c.options.map { PluginFormConditionalOptions(section: c.section, key: c.key, value: c.value, options: $0) }
        }
        formSections = f.formSections?.map {
            PluginFormNestedSection(key: $0.key, label: $0.label, fields: $0.items.map(PluginFormItem.init))
        }
        valueForm = f.valueForm
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(key, forKey: .key)
        try c.encode(type, forKey: .type)
        try c.encode(label, forKey: .label)
        try c.encode(placeholder, forKey: .placeholder)
        try c.encode(initialValue, forKey: .initialValue)
        try c.encode(options, forKey: .options)
        try c.encode(mandatory, forKey: .mandatory)
        try c.encode(conditions, forKey: .conditions)
        try c.encode(conditionsMatch, forKey: .conditionsMatch)
        try c.encode(conditionalOptions, forKey: .conditionalOptions)
        try c.encode(formSections, forKey: .formSections)
        try c.encode(valueForm, forKey: .valueForm)
    }
}

extension PluginFormItem {
    init(_ item: ManifestItem) {
        switch item {
        case .field(let f): self = .field(PluginFormField(f))
        case .group(let g): self = .group(PluginFormGroup(label: g.label, folded: g.folded, fields: g.items.map(PluginFormItem.init)))
        }
    }
}

extension PluginManifest {
    /// The editor form: the sections present, in `sectionNames` order.
    public func form() -> PluginForm {
        PluginForm(
            identifier: identifier, name: name, type: type, screen: isScreen, uiComponent: isUIComponent,
            canHaveComponents: canHaveComponents,
            sections: presentSections.map { PluginFormSection(name: $0, fields: (sections[$0] ?? []).map(PluginFormItem.init)) },
            customConfigurationFields: customConfigurationFields.map(PluginFormItem.init))
    }
}
