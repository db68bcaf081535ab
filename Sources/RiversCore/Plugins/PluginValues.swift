/// Values of a screen or component that uses a plugin: what it starts from, and whether given
/// values fit the manifest.
///
/// Decisions where the spec is silent:
/// - Keys the manifest does not declare are allowed and left alone (real documents carry extras).
/// - `null` and `""` mean "not set": never a type error, but they fail `mandatory`.
/// - A mandatory field is only required while its conditions hold. Conditions on fields of the
///   same section are evaluated against the given values (falling back to the manifest's initial
///   values); conditions on another section are taken as holding, so the check errs on the strict side.
/// - A section the manifest does not declare accepts any object.
extension PluginManifest {
    /// Every field's normalised initial value for one section, groups flattened. Fields without an
    /// initial value are absent. A `text_style` field starts from an object built from its nested fields.
    public func initialValues(section: String) -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        for field in fields(in: section) {
            if let v = field.startingValue { out[field.key] = v }
        }
        return out
    }

    /// Problems with a section's values (`values` must be an object), located at `pointerPrefix/<key>`.
    public func validateValues(_ values: JSONValue, section: String, pointerPrefix: String) -> [FieldError] {
        guard case .object(let object) = values else {
            return [FieldError(pointerPrefix, "\"\(section)\" must be an object, got \(values.typeName)")]
        }
        var errors: [FieldError] = []
        // A condition names a field by key: looked up in an index, not by a pass over the section;
        // each key's value made into texts once for every condition that compares it.
        let byKey = fieldIndex(section)
        var texts: [String: Set<String>] = [:]
        for field in fields(in: section) {
            let pointer = JSONPointer.join(pointerPrefix, field.key)
            let value = object[field.key]
            if let value {
                errors += field.check(value, pointer: pointer)
                if field.type == .textStyle, case .object(let nested) = value {
                    errors += checkNested(field, nested, pointer: pointer)
                }
            }
            if field.mandatory && PluginJSON.isEmpty(value) && conditionsHold(field, section: section, values: object, fields: byKey, texts: &texts) {
                errors.append(FieldError(pointer, "\"\(field.key)\" is mandatory"))
            }
        }
        return errors
    }

    /// Writes each value in its field's form (`ManifestField.valueForm`, docs/spec/plugin-values.md:
    /// `"true"` → `true` for a switch, `24` → `"24"` for a number without a numeric initial value,
    /// `["image"]` → `"image"` for a tag_select, …). Undeclared keys and values that cannot be
    /// written so are left as they are (validation reports them).
    /// Notes say what changed, located at `pointerPrefix/<key>`.
    public func normalizeValues(_ values: JSONValue, section: String, pointerPrefix: String = "") -> (values: JSONValue, notes: [FieldError]) {
        guard case .object(var object) = values else { return (values, []) }
        var notes: [FieldError] = []
        for field in fields(in: section) {
            guard let value = object[field.key] else { continue }
            let (normalized, note) = field.normalized(value)
            if let note {
                object[field.key] = normalized
                notes.append(FieldError(JSONPointer.join(pointerPrefix, field.key), note))
            }
        }
        return (.object(object), notes)
    }

    /// The non-empty string values of the section's `screen_selector` fields, in field order: the
    /// screen ids these values point at, so the caller can check they exist.
    public func screenTargets(_ values: JSONValue, section: String) -> [String] {
        guard case .object(let object) = values else { return [] }
        return fields(in: section).filter { $0.type == .screenSelector }.compactMap { field in
            guard case .string(let s)? = object[field.key], !s.isEmpty else { return nil }
            return s
        }
    }

    /// A section's fields by key (the first of a key, as `field(section:key:)` finds it).
    func fieldIndex(_ section: String) -> [String: ManifestField] {
        var byKey: [String: ManifestField] = [:]
        for field in fields(in: section) where byKey[field.key] == nil { byKey[field.key] = field }
        return byKey
    }

    /// Whether a field's conditions hold (true when it has none).
    func conditionsHold(_ field: ManifestField, section: String, values: [String: JSONValue]) -> Bool {
        var texts: [String: Set<String>] = [:]
        return conditionsHold(field, section: section, values: values, fields: fieldIndex(section), texts: &texts)
    }

    /// A condition holds when the value of the field it names (or, when that is an array, one of
    /// its elements) equals its value (or one of its elements), scalars compared by their text so
    /// `true` matches `"true"`. `texts` keeps each key's texts for the next condition naming it.
    func conditionsHold(
        _ field: ManifestField, section: String, values: [String: JSONValue], fields: [String: ManifestField], texts: inout [String: Set<String>]
    ) -> Bool {
        guard !field.conditions.isEmpty else { return true }
        var held = 0
        for condition in field.conditions {
            guard condition.section == section else {
                held += 1
                continue
            }
            let have: Set<String>
            if let known = texts[condition.key] {
                have = known
            } else {
                have = ManifestCondition.texts(values[condition.key] ?? fields[condition.key]?.startingValue)
                texts[condition.key] = have
            }
            if !have.isDisjoint(with: condition.wanted) { held += 1 }
        }
        return field.matchAllConditions ? held == field.conditions.count : held > 0
    }

    private func checkNested(_ field: ManifestField, _ nested: [String: JSONValue], pointer: String) -> [FieldError] {
        var errors: [FieldError] = []
        for section in field.formSections ?? [] {
            guard let sectionValue = nested[section.key] else { continue }
            let p = JSONPointer.join(pointer, section.key)
            guard case .object(let inner) = sectionValue else {
                errors.append(FieldError(p, "expected an object, got \(sectionValue.typeName)"))
                continue
            }
            for f in section.items.allFields {
                let fp = JSONPointer.join(p, f.key)
                if let v = inner[f.key] { errors += f.check(v, pointer: fp) }
                if f.mandatory && PluginJSON.isEmpty(inner[f.key]) {
                    errors.append(FieldError(fp, "\"\(f.key)\" is mandatory"))
                }
            }
        }
        return errors
    }
}
