import Foundation

/// How a field's value is stored in a screen document, derived from its type.
enum PluginValueKind: Sendable {
    case string  // text inputs, font selectors, nav bar selector
    case number
    case bool
    case single  // one option value
    case multiple  // array of option values
    case hexColor  // #RRGGBB or #AARRGGBB
    case rgbaColor  // rgba(r, g, b, a)
    case url  // uploader
    case screen  // screen_selector: a screen id
    case hooks  // preload_plugins_selector: array of hook objects
    case object  // text_style
    case any  // hidden
}

extension ManifestField {
    var valueKind: PluginValueKind {
        switch type {
        case .textInput, .textArea, .iosFontSelector, .androidFontSelector, .tvosFontSelector, .fontSelector,
            .navBarSelector, .text, .textarea:
            return .string
        case .numberInput: return .number
        case .switchField, .checkbox: return .bool
        case .select, .dropdown: return multiple ? .multiple : .single
        // A tag_select holds one value, a plain string (docs/spec/plugin-values.md).
        case .tagSelect: return .single
        case .multiSelect, .tags: return .multiple
        case .colorPicker, .colorpicker: return .hexColor
        case .colorPickerRGBA: return .rgbaColor
        case .uploader: return .url
        case .screenSelector: return .screen
        case .preloadPluginsSelector: return .hooks
        case .textStyle: return .object
        case .hidden: return .any
        }
    }

    /// The form this field's values are written in (docs/spec/plugin-values.md): by its type, and
    /// for switches, checkboxes and numbers by the JSON type of the manifest's initial value.
    public var valueForm: PluginValueForm { statedForm ?? Self.form(of: valueKind, stated: nil) }

    /// The form of a field's values given the initial value its manifest writes (`nil`: none).
    static func form(of kind: PluginValueKind, stated: JSONValue?) -> PluginValueForm {
        switch kind {
        case .bool:
            // Only a manifest that states "1"/"0" gets "1"/"0"; "true"/"false" strings never stay.
            if case .string(let s)? = stated, ["1", "0"].contains(s.trimmingCharacters(in: .whitespaces)) {
                return .oneOrZero
            }
            return .boolean
        case .number:
            if case .number? = stated { return .number }
            return .numberText
        case .single: return .choice
        case .multiple: return .choices
        default: return .asTyped
        }
    }

    /// Values are strings where the type is a number or a switch: `"18"`, `"1"`.
    public var valuesAreText: Bool { valueForm == .numberText || valueForm == .oneOrZero }

    /// A switch's state read from any way it has been written: `true`, `"true"`, `"1"`, `1`.
    static func switchState(_ value: JSONValue) -> Bool? {
        switch value {
        case .bool(let b): return b
        case .string(let s):
            let t = s.trimmingCharacters(in: .whitespaces)
            return PluginJSON.looseBool(value) ?? (t == "1" ? true : t == "0" ? false : nil)
        case .number(let n) where n == 0 || n == 1: return n == 1
        default: return nil
        }
    }

    /// Writes a loose value in the field's form (`valueForm`, the one rule per type of
    /// docs/spec/plugin-values.md): a switch as `true`/`false` or `"1"`/`"0"`, a number as a number
    /// or its digits, one option value for a `tag_select` given as a one-element array; otherwise
    /// `12` → `"12"` where a string is expected, a case-insensitive option match → the option's
    /// value, one string → a one-element array for a multiple choice, `rgb(r,g,b)` → `rgba(r, g, b, 1)`.
    /// Returns the value unchanged (and no note) when nothing applies; `check` reports what is still wrong.
    func normalized(_ value: JSONValue) -> (value: JSONValue, note: String?) {
        switch valueForm {
        case .boolean, .oneOrZero:
            guard let on = Self.switchState(value) else { return (value, nil) }
            let out: JSONValue = valueForm == .boolean ? .bool(on) : .string(on ? "1" : "0")
            if out == value { return (value, nil) }
            let why = valueForm == .boolean ? "a \(type.rawValue) is a JSON boolean" : "this \(type.rawValue)'s manifest states its value as \"1\"/\"0\""
            return (out, "\(PluginJSON.describe(value)) was written as \(PluginJSON.describe(out)): \(why)")
        case .number:
            if case .string(let s) = value {
                let t = s.trimmingCharacters(in: .whitespaces)
                if !t.isEmpty, let n = Double(t), n.isFinite {
                    return (.number(n), "the string \"\(s)\" was written as the number \(PluginJSON.numberText(n)), the type of this field's initial value")
                }
            }
            return (value, nil)
        case .numberText:
            if case .number(let n) = value {
                let s = PluginJSON.numberText(n)
                return (.string(s), "the number \(s) was written as the string \"\(s)\": this number_input's manifest gives no numeric initial value")
            }
            return (value, nil)
        case .choice:
            if case .array(let items) = value, items.count <= 1 {
                let options = OptionIndex(allOptions)
                let one = items.first.map { options.match($0) ?? $0 } ?? .string("")
                return (one, "\(value.serializedString()) was written as \(PluginJSON.describe(one)): a \(type.rawValue) holds one value")
            }
        case .choices, .asTyped:
            break
        }
        switch valueKind {
        case .string, .url, .screen, .hexColor:
            if case .number(let n) = value {
                let s = PluginJSON.numberText(n)
                return (.string(s), "the number \(s) was read as the string \"\(s)\"")
            }
        case .rgbaColor:
            if case .number(let n) = value {
                let s = PluginJSON.numberText(n)
                return (.string(s), "the number \(s) was read as the string \"\(s)\"")
            }
            if case .string(let s) = value, let rgb = PluginColor.parseRGB(s) {
                let out = "rgba(\(rgb.0), \(rgb.1), \(rgb.2), 1)"
                return (.string(out), "\"\(s)\" was read as \"\(out)\"")
            }
        case .single:
            if let match = OptionIndex(allOptions).match(value), match != value {
                return (match, "\(PluginJSON.describe(value)) was read as the option value \(PluginJSON.describe(match))")
            }
        case .multiple:
            let options = OptionIndex(allOptions)
            switch value {
            case .array(let items):
                var changed = false
                let out = items.map { item -> JSONValue in
                    if let m = options.match(item), m != item { changed = true; return m }
                    return item
                }
                if changed {
                    return (.array(out), "\(value.serializedString()) was read as \(JSONValue.array(out).serializedString())")
                }
            case .string(let s) where !s.isEmpty:
                let one = options.match(value) ?? value
                return (.array([one]), "the single value \"\(s)\" was read as \(JSONValue.array([one]).serializedString())")
            case .number, .bool:
                let one = options.match(value) ?? value
                return (.array([one]), "the single value \(PluginJSON.describe(value)) was read as \(JSONValue.array([one]).serializedString())")
            default: break
            }
        case .number, .bool, .hooks, .object, .any:
            break
        }
        return (value, nil)
    }

    /// A field's option values, indexed once for every value of a check (a `multi_select` value
    /// may hold thousands of items, and a manifest thousands of options: each item costs a
    /// lookup, not a pass over the options).
    struct OptionIndex {
        let values: [JSONValue]
        let set: Set<JSONValue>
        /// Values by their plain text, and by it lowercased (the first two of each are enough to
        /// tell one match from several).
        let byText: [String: [JSONValue]]
        let byFoldedText: [String: [JSONValue]]

        init(_ options: [ManifestOption]) {
            values = options.map(\.value)
            set = Set(values)
            var byText: [String: [JSONValue]] = [:], byFoldedText: [String: [JSONValue]] = [:]
            for value in values {
                guard let text = PluginColor.plainText(value) else { continue }
                if byText[text, default: []].count < 2 { byText[text, default: []].append(value) }
                if byFoldedText[text.lowercased(), default: []].count < 2 { byFoldedText[text.lowercased(), default: []].append(value) }
            }
            self.byText = byText
            self.byFoldedText = byFoldedText
        }

        /// The option value a loose value stands for: itself, the same text (`5` for `"5"`), or a
        /// unique case-insensitive match (`"Color"` for `"color"`). With no options, a number
        /// becomes a string.
        func match(_ value: JSONValue) -> JSONValue? {
            if values.isEmpty {
                if case .number(let n) = value { return .string(PluginJSON.numberText(n)) }
                return nil
            }
            if set.contains(value) { return value }
            guard let text = PluginColor.plainText(value) else { return nil }
            if let same = byText[text], same.count == 1 { return same[0] }
            if let folded = byFoldedText[text.lowercased()], folded.count == 1 { return folded[0] }
            return nil
        }

        /// Why `value` is not one of the options (none when it is, or when there are none and it
        /// is a string or a number). The message names the first 20 options only.
        func problems(_ value: JSONValue, pointer: String) -> [FieldError] {
            if values.isEmpty {
                switch value {
                case .string, .number: return []
                default: return [FieldError(pointer, "expected a string, got \(PluginJSON.got(value))")]
                }
            }
            if set.contains(value) { return [] }
            let shown = values.prefix(20).map(PluginJSON.describe) + (values.count > 20 ? ["and \(values.count - 20) more"] : [])
            return [FieldError(pointer, "\(PluginJSON.describe(value)) is not one of the options: \(shown.joined(separator: ", "))")]
        }
    }

    /// Problems with a (normalised) value for this field, located under `pointer`.
    /// `null` and `""` mean "not set" and are never a type error (mandatory is checked elsewhere).
    func check(_ value: JSONValue, pointer: String) -> [FieldError] {
        if value.isNull || value == .string("") { return [] }
        func wrong(_ expected: String) -> [FieldError] {
            [FieldError(pointer, "expected \(expected), got \(PluginJSON.got(value))")]
        }
        switch valueKind {
        case .string, .screen:
            return value.stringValue == nil ? wrong("a string") : []
        case .number:
            // A string must read as a number: the text is kept, so it must mean one.
            // (Either JSON type is written in the field's form by `normalized`.)
            if case .string(let s) = value {
                let t = s.trimmingCharacters(in: .whitespaces)
                return Double(t).map(\.isFinite) == true ? [] : [FieldError(pointer, "\"\(s.prefix(100))\" is not a number")]
            }
            return value.numberValue == nil ? wrong("a number") : []
        case .bool:
            if case .string(let s) = value {
                return Self.switchState(value) != nil ? [] : [FieldError(pointer, "\"\(s.prefix(100))\" is not true or false")]
            }
            return Self.switchState(value) == nil ? wrong("a boolean") : []
        case .single:
            if case .array(let items) = value {
                return [FieldError(pointer, "a \(type.rawValue) holds one value, not an array of \(items.count)")]
            }
            return OptionIndex(allOptions).problems(value, pointer: pointer)
        case .multiple:
            guard case .array(let items) = value else { return wrong("an array of option values") }
            let options = OptionIndex(allOptions)
            return items.enumerated().flatMap { i, item in options.problems(item, pointer: JSONPointer.join(pointer, i)) }
        case .hexColor:
            guard let s = value.stringValue else { return wrong("a colour string like \"#AARRGGBB\"") }
            return PluginColor.isHex(s) ? [] : [FieldError(pointer, "\"\(s)\" is not a colour: expected \"#AARRGGBB\" or \"#RRGGBB\"")]
        case .rgbaColor:
            guard let s = value.stringValue else { return wrong("a colour string like \"rgba(255, 255, 255, 1)\"") }
            return PluginColor.isRGBA(s)
                ? [] : [FieldError(pointer, "\"\(s)\" is not a colour: expected \"rgba(r, g, b, a)\" with r, g, b in 0…255 and a in 0…1")]
        case .url:
            guard let s = value.stringValue else { return wrong("a URL string") }
            return PluginColor.isWebURL(s) ? [] : [FieldError(pointer, "\"\(s)\" is not an http(s) URL")]
        case .hooks:
            guard case .array(let items) = value else { return wrong("an array of hooks") }
            return items.enumerated().flatMap { i, item in Hook.parse(item, pointer: JSONPointer.join(pointer, i)).errors }
        case .object:
            return value.objectValue == nil ? wrong("an object") : []
        case .any:
            return []
        }
    }

    /// The value a screen starts from: `initialValue`, or for a `text_style` field an object built
    /// from its nested fields' initial values (`nil` when nothing has one).
    var startingValue: JSONValue? {
        if let initialValue, !initialValue.isNull { return initialValue }
        guard type == .textStyle, let formSections else { return nil }
        var out: [String: JSONValue] = [:]
        for section in formSections {
            var inner: [String: JSONValue] = [:]
            for field in section.items.allFields {
                if let v = field.startingValue { inner[field.key] = v }
            }
            if !inner.isEmpty { out[section.key] = .object(inner) }
        }
        return out.isEmpty ? nil : .object(out)
    }
}

/// Colour, URL and plain-text helpers for field values.
enum PluginColor {
    static func isHex(_ s: String) -> Bool {
        guard s.hasPrefix("#") else { return false }
        let digits = s.dropFirst()
        return (digits.count == 6 || digits.count == 8) && digits.allSatisfy(\.isHexDigit)
    }

    /// `rgba(r, g, b, a)`: spaces anywhere between the parts, r/g/b integers 0…255, a a number 0…1.
    static func isRGBA(_ s: String) -> Bool {
        guard let parts = functionArguments(s, name: "rgba"), parts.count == 4 else { return false }
        guard parts[0...2].allSatisfy({ Int($0).map { (0...255).contains($0) } ?? false }) else { return false }
        guard let a = Double(parts[3]), (0...1).contains(a) else { return false }
        return true
    }

    /// `rgb(r, g, b)` with r/g/b integers 0…255.
    static func parseRGB(_ s: String) -> (Int, Int, Int)? {
        guard let parts = functionArguments(s, name: "rgb"), parts.count == 3 else { return nil }
        let ints = parts.compactMap { Int($0) }.filter { (0...255).contains($0) }
        guard ints.count == 3 else { return nil }
        return (ints[0], ints[1], ints[2])
    }

    private static func functionArguments(_ s: String, name: String) -> [String]? {
        let t = s.trimmingCharacters(in: .whitespaces)
        guard t.lowercased().hasPrefix(name + "("), t.hasSuffix(")") else { return nil }
        let inner = t.dropFirst(name.count + 1).dropLast()
        return inner.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
    }

    static func isWebURL(_ s: String) -> Bool {
        guard let c = URLComponents(string: s), let scheme = c.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = c.host, !host.isEmpty
        else { return false }
        return true
    }

    /// A scalar's text (`"a"`, `5` → `"5"`, `true` → `"true"`); nil for null, arrays and objects.
    static func plainText(_ value: JSONValue) -> String? {
        switch value {
        case .string(let s): return s
        case .number(let n): return PluginJSON.numberText(n)
        case .bool(let b): return b ? "true" : "false"
        default: return nil
        }
    }
}
