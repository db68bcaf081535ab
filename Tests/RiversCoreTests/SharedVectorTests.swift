import Foundation
import Testing

@testable import RiversCore
import RiversLayout

/// The cases in `Tests/Fixtures/vectors`, shared with the editor: `Tests/browser/test_vectors.py`
/// runs `Public/js/family-math.js` and `Public/js/plugin-conditions.js` on the same files, so the
/// server's rules and the editor's copies of them are checked against the same vectors.
enum SharedVectors {
    struct NotFound: Error, CustomStringConvertible {
        var description: String
    }

    /// `Tests/Fixtures/vectors`, found from this file like the other fixtures.
    static func directory(from file: String = #filePath) -> URL {
        URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/vectors").standardizedFileURL
    }

    /// A screen plugin's manifest: a minimal one with the vector's sections; an issue when refused.
    static func screenPlugin(_ sections: [String: JSONValue], name: String) -> PluginManifest? {
        var json = PluginFixtures.minimal().objectValue ?? [:]
        for (key, value) in sections { json[key] = value }
        json["identifier"] = .string("vector_plugin")
        json["screen"] = .bool(true)
        do {
            return try PluginManifest.parse(.object(json))
        } catch {
            Issue.record("\(name): the manifest is refused: \(error.errors)")
            return nil
        }
    }

    /// The `vectors` array of one file.
    static func vectors(_ name: String) throws -> [JSONValue] {
        let url = directory().appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw NotFound(description: "vector file \(name) not found at \(url.path)")
        }
        guard let list = try JSONValue.parse(Array(data))["vectors"]?.arrayValue else {
            throw NotFound(description: "\(name) has no \"vectors\" array")
        }
        return list
    }
}

@Suite("Shared vectors")
struct SharedVectorTests {
    /// Each vector is a family (without id, name and cell styles) and one cell style: either the
    /// style's size at the reference size, or the pointers of every problem the family body has.
    @Test func cellSizes() throws {
        let vectors = try SharedVectors.vectors("cell-sizes.json")
        #expect(vectors.count >= 30)
        for vector in vectors {
            let name = vector["name"]?.stringValue ?? "(unnamed)"
            guard case .object(var body)? = vector["family"], case .object(var style)? = vector["cell_style"] else {
                Issue.record("\(name): a vector needs a family and a cell_style object")
                continue
            }
            style["id"] = .string("STYLE_1")
            body["id"] = .string("VECTORS")
            body["name"] = .string("Vectors")
            body["cell_styles"] = .array([.object(style)])

            let problems = Problems()
            let parsed = Family.read(.object(body), problems: problems)
            if let size = vector["size"] {
                let width = try #require(size["width"]?.numberValue, "\(name): size.width")
                let height = try #require(size["height"]?.numberValue, "\(name): size.height")
                guard let parsed, let cellStyle = parsed.cellStyles.first else {
                    Issue.record("\(name): refused with \(problems.errors)")
                    continue
                }
                let computed = parsed.referenceCellSize(cellStyle)
                #expect(abs(computed.width - width) <= 1e-9, "\(name): width \(computed.width), expected \(width)")
                #expect(abs(computed.height - height) <= 1e-9, "\(name): height \(computed.height), expected \(height)")
                // The API shows the same size as the style's `computed`.
                #expect(parsed.json["cell_styles"]?.arrayValue?.first?["computed"] == computed.json, "\(name): computed")
            } else {
                let expected = Set((vector["problems"]?.arrayValue ?? []).compactMap(\.stringValue))
                #expect(!expected.isEmpty, "\(name): a vector gives a size or problems")
                #expect(parsed == nil, "\(name): accepted, expected problems at \(expected.sorted())")
                #expect(Set(problems.errors.map(\.pointer)) == expected, "\(name): \(problems.errors)")
            }
        }
    }

    /// Each vector is a screen plugin's manifest sections, the values of one section, and for some
    /// fields whether each is shown (its conditions hold) and required (mandatory and shown).
    @Test func pluginFieldConditions() throws {
        let vectors = try SharedVectors.vectors("plugin-conditions.json")
        #expect(vectors.count >= 20)
        for vector in vectors {
            let name = vector["name"]?.stringValue ?? "(unnamed)"
            guard case .object(let sections)? = vector["sections"], let section = vector["section"]?.stringValue,
                  case .object(let values)? = vector["values"], case .object(let fields)? = vector["fields"]
            else {
                Issue.record("\(name): a vector needs sections, section, values and fields")
                continue
            }
            guard let manifest = SharedVectors.screenPlugin(sections, name: name) else { continue }

            for (key, expected) in fields.sorted(by: { $0.key < $1.key }) {
                guard let field = manifest.field(section: section, key: key) else {
                    Issue.record("\(name): no field \(section)/\(key)")
                    continue
                }
                let shownExpected = try #require(expected["shown"]?.boolValue, "\(name), \(key): shown")
                let requiredExpected = try #require(expected["required"]?.boolValue, "\(name), \(key): required")

                let shown = manifest.conditionsHold(field, section: section, values: values)
                #expect(shown == shownExpected, "\(name), \(key): shown is \(shown)")
                #expect((field.mandatory && shown) == requiredExpected, "\(name), \(key): required is \(field.mandatory && shown)")

                // What a save answers: left empty, the field is "mandatory" exactly when it is required.
                var emptied = values
                emptied[key] = .string("")
                let errors = manifest.validateValues(.object(emptied), section: section, pointerPrefix: "/\(section)")
                let mandatory = FieldError("/\(section)/\(key)", "\"\(key)\" is mandatory")
                #expect(errors.contains(mandatory) == requiredExpected, "\(name), \(key): \(errors)")
                #expect(errors.allSatisfy { $0.message.hasSuffix("is mandatory") }, "\(name), \(key): \(errors)")
            }
        }
    }

    /// Each vector is one field of a screen plugin's `styles`, the form its values are written in,
    /// the value a new screen starts from, and what each value given (by the editor's control or
    /// loosely, by a caller or an earlier version) is written as (docs/spec/plugin-values.md).
    @Test func pluginValueForms() throws {
        let vectors = try SharedVectors.vectors("plugin-values.json")
        #expect(vectors.count >= 12)
        for vector in vectors {
            let name = vector["name"]?.stringValue ?? "(unnamed)"
            guard let fieldJSON = vector["field"], let key = fieldJSON["key"]?.stringValue,
                  let form = vector["value_form"]?.stringValue else {
                Issue.record("\(name): a vector needs a field with a key and a value_form")
                continue
            }
            guard let manifest = SharedVectors.screenPlugin(["styles": ["fields": [fieldJSON]]], name: name) else { continue }
            let field = try #require(manifest.field(section: "styles", key: key), "\(name)")
            #expect(field.valueForm.rawValue == form, "\(name): \(field.valueForm)")
            // The form the editor is given says the same, and the value a screen starts from.
            let formField = manifest.form().sections.first { $0.name == "styles" }?.fields.first
            guard case .field(let given)? = formField else {
                Issue.record("\(name): no form field")
                continue
            }
            #expect(given.valueForm.rawValue == form, "\(name): form")
            #expect(given.initialValue == (vector["initial_value"] ?? .null), "\(name): initial value \(given.initialValue)")
            let cases = (vector["inputs"]?.arrayValue ?? []).map { ($0["input"], $0["value"]) }
                + (vector["loose"]?.arrayValue ?? []).map { ($0["given"], $0["value"]) }
            #expect(!cases.isEmpty, "\(name)")
            for case let (input?, expected?) in cases {
                let written = field.normalized(input).value
                #expect(written == expected, "\(name): \(input.serializedString()) was written as \(written.serializedString())")
                #expect(manifest.validateValues([key: written], section: "styles", pointerPrefix: "/styles") == [], "\(name)")
                // Written again, it stays as it is.
                #expect(field.normalized(written).value == written, "\(name): \(written.serializedString()) again")
            }
        }
    }
}
