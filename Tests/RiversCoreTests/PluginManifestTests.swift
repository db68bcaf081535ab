import Foundation
import Testing

@testable import RiversCore

@Suite("Plugin manifests: fixtures")
struct PluginManifestFixtureTests {
    @Test("every fixture manifest is accepted", arguments: PluginFixtures.acceptedManifests)
    func fixtureAccepted(name: String) throws {
        let json = try PluginFixtures.json(name)
        do throws(ValidationFailure) {
            let manifest = try PluginManifest.parse(json)
            #expect(!manifest.identifier.isEmpty)
            // The normalised raw parses again to the same manifest, with nothing left to normalise.
            let again = try PluginManifest.parse(manifest.raw)
            #expect(again.notes.allSatisfy { $0.message.hasPrefix("missing") && manifest.notes.contains($0) }, "\(again.notes)")
            #expect(again.raw == manifest.raw)
            #expect(again.sections == manifest.sections)
        } catch {
            Issue.record("\(name) rejected: \(error)")
        }
    }

    @Test func fixtureProperties() throws {
        let admob = try PluginFixtures.manifest("manifest_qb_admob_inline_banner_ui_component_ios_qb.json")
        #expect(admob.identifier == "google-admob-inline-banner-qb")
        #expect(admob.type == "ui_component")
        #expect(admob.isUIComponent)
        #expect(!admob.isScreen)
        #expect(!admob.canHaveComponents)
        #expect(admob.manifestVersion == "0.0.4")
        #expect(admob.platform == "ios_for_quickbrick")
        #expect(admob.presentSections == ["styles"])
        #expect(admob.fields(in: "styles").count == 10)
        #expect(admob.customConfigurationFields.allFields.map(\.key) == ["plist.GADApplicationIdentifier"])

        let screen = try PluginFixtures.manifest("devportal_snippet_screen-with-ui-components.json")
        #expect(screen.isScreen)
        #expect(screen.canHaveComponents)
        #expect(!screen.isUIComponent)
        #expect(screen.presentSections == ["general", "styles", "hooks"])
        #expect(screen.field(section: "hooks", key: "preload_plugins")?.type == .preloadPluginsSelector)

        let lock = try PluginFixtures.manifest("manifest_qb_parent_lock_screen_ios_for_quickbrick.json")
        #expect(lock.isScreen)
        #expect(lock.presentSections == ["general", "hooks"])
        guard case .group(let group)? = lock.sections["general"]?[1] else {
            Issue.record("expected a group at /general/fields/1")
            return
        }
        #expect(group.label == "Screen Design and Text")
        #expect(group.folded)
        #expect(group.items.count == 44)

        let zee = try PluginFixtures.manifest("manifest_zee5_home_screen_native_ios.json")
        #expect(zee.field(section: "general", key: "screen_type")?.options.map(\.text) == ["DEFAULT", "EPG", "SEARCH"])
        #expect(zee.field(section: "general", key: "epg_screen_id")?.conditions == [
            ManifestCondition(section: "general", key: "screen_type", value: "EPG")
        ])
        #expect(zee.customConfigurationFields.allFields.map(\.type) == [.checkbox, .numberInput])
        // Legacy configuration values are read loosely but never rewritten in raw.
        #expect(zee.customConfigurationFields.allFields[0].initialValue == 1)
        #expect(zee.raw["custom_configuration_fields"]?.arrayValue?[0]["initial_value"] == 1)

        let text = try PluginFixtures.manifest("devportal_snippet_text-style-multiple-fields.json")
        let style = try #require(text.field(section: "styles", key: "multiple_fields_demo"))
        #expect(style.type == .textStyle)
        #expect(style.formSections?.map(\.key) == ["section_one", "another_parent_key", "a_lone_section"])
        #expect(style.formSections?[0].items.allFields.map(\.key) == ["my_text_input", "my_number_input", "my_select", "my_font_family"])

        let zappifest = try PluginFixtures.manifest("devportal_zappifest_example_manifest.json")
        #expect(!zappifest.uiBuilderSupport)
        #expect(zappifest.notes.contains(FieldError("/ui_builder_support", "missing; read as false")))
        #expect(zappifest.customConfigurationFields.allFields.first?.type == .text)
        let cells = try #require(zappifest.field(section: "styles", key: "cell_styles"))
        #expect(cells.allOptions.map(\.value) == ["cell_1", "cell_2", "cell_3"])
    }

    @Test func legacyDocumentationManifestIsRejectedWithLineAndColumn() throws {
        let bytes = try PluginFixtures.bytes("devportal_epg_legacy_screen_plugin_manifest.json.txt")
        #expect(throws: JSONParseError.self) { try JSONValue.parse(bytes) }
        do {
            _ = try JSONValue.parse(bytes)
        } catch {
            #expect(error.description == "Invalid JSON at line 45, column 9: unexpected character ']'")
        }
        do throws(ValidationFailure) {
            _ = try PluginManifest.parse(bytes: bytes)
            Issue.record("accepted invalid JSON")
        } catch {
            #expect(error.errors == [FieldError("", "Invalid JSON at line 45, column 9: unexpected character ']'")])
        }
    }

    @Test func legacyDocumentationManifestRepairedStillHasABadColour() throws {
        var text = String(decoding: try PluginFixtures.bytes("devportal_epg_legacy_screen_plugin_manifest.json.txt"), as: UTF8.self)
        text = text.replacingOccurrences(of: "\"Background color of cards.\"\n            },\n        ]", with: "\"Background color of cards.\"\n            }\n        ]")
        let errors = PluginFixtures.errors(try PluginFixtures.parse(text))
        #expect(errors == [
            FieldError(
                "/styles/fields/2/initial_value",
                "\"rgba(43,43,43, 1)\" is not a colour: expected \"#AARRGGBB\" or \"#RRGGBB\"")
        ])
    }
}

@Suite("Plugin manifests: rules")
struct PluginManifestRuleTests {
    typealias F = PluginFixtures

    @Test func minimalManifestIsAccepted() throws {
        let m = try PluginManifest.parse(F.minimal())
        #expect(m.identifier == "test_plugin")
        #expect(m.sections.isEmpty)
        #expect(m.notes.isEmpty)
        #expect(m.raw == F.minimal())
    }

    @Test func notAnObject() {
        #expect(F.errors(["a"]) == [FieldError("", "a plugin manifest must be a JSON object, got array")])
    }

    @Test("each required key is reported at its pointer", arguments: [
        "author_name", "author_email", "manifest_version", "name", "description", "identifier", "type", "min_zapp_sdk",
    ])
    func requiredKey(key: String) {
        let errors = F.errors(F.minimal([key: nil]))
        #expect(errors == [FieldError("/" + key, "\"\(key)\" is required")])
    }

    @Test func everyMissingKeyReportedAtOnce() {
        let errors = F.errors(["screen": "maybe"])
        #expect(errors.map(\.pointer).sorted() == [
            "/author_email", "/author_name", "/description", "/identifier", "/manifest_version", "/min_zapp_sdk", "/name",
            "/screen", "/type",
        ])
    }

    @Test func uiBuilderSupportMissingReadsAsFalseButMustBeABoolean() throws {
        let m = try PluginManifest.parse(F.minimal(["ui_builder_support": nil]))
        #expect(!m.uiBuilderSupport)
        #expect(m.notes == [FieldError("/ui_builder_support", "missing; read as false")])
        #expect(F.errors(F.minimal(["ui_builder_support": "yes"])) == [
            FieldError("/ui_builder_support", "must be a boolean, got string \"yes\"")
        ])
    }

    @Test func requiredStringsHaveTypes() {
        let errors = F.errors(F.minimal(["identifier": "", "name": true, "author_email": ["a"]]))
        #expect(errors == [
            FieldError("/identifier", "must not be empty"),
            FieldError("/name", "must be a string, got boolean"),
            FieldError("/author_email", "must be a string, got array"),
        ])
    }

    @Test func identifierRules() {
        let alphabet = FieldError("/identifier", "must be 1 to 100 letters, digits, '.', '_' or '-', starting with a letter or digit")
        // Identifiers appear in URL paths: anything that would need escaping is refused.
        for bad in ["my plugin", "a/b", "q?x=1#f", "../../x", "%2e"] {
            #expect(F.errors(F.minimal(["identifier": .string(bad)])) == [alphabet], "\(bad)")
        }
        #expect(F.errors(F.minimal(["identifier": "general_content"])) == [
            FieldError("/identifier", "\"general_content\" is reserved for built-in screens")
        ])
    }

    @Test func unknownTopLevelKeys() {
        let errors = F.errors(F.minimal(["colour": "red", "zzz": 1]))
        #expect(errors == [
            FieldError("/colour", "unknown top-level key \"colour\""),
            FieldError("/zzz", "unknown top-level key \"zzz\""),
        ])
    }

    @Test func everyKeyUsedByTheFixturesIsKnown() throws {
        for name in F.acceptedManifests {
            for key in try F.json(name).objectValue?.keys ?? [:].keys {
                #expect(PluginManifest.knownKeys.contains(key), "\(name): \(key)")
            }
        }
    }

    @Test func screenAndCharacteristics() throws {
        #expect(F.errors(F.minimal(["screen": 1])) == [FieldError("/screen", "must be a boolean, got number 1")])
        #expect(F.errors(F.minimal(["characteristics": "x"])) == [FieldError("/characteristics", "must be an object, got string")])
        #expect(F.errors(F.minimal(["characteristics": ["can_have_components": "sure"]])) == [
            FieldError("/characteristics/can_have_components", "must be a boolean, got string \"sure\"")
        ])
        let m = try PluginManifest.parse(F.minimal(["screen": "true", "characteristics": ["can_have_components": "true"]]))
        #expect(m.isScreen)
        #expect(m.canHaveComponents)
        #expect(m.raw["screen"] == true)
        #expect(m.raw["characteristics"]?["can_have_components"] == true)
        #expect(m.notes.map(\.pointer) == ["/screen", "/characteristics/can_have_components"])
    }

    @Test func sectionShape() {
        #expect(F.errors(F.minimal(["general": []])) == [
            FieldError("/general", "a section must be an object like {\"fields\": [...]}, got array")
        ])
        #expect(F.errors(F.minimal(["styles": ["fields": "x"]])) == [FieldError("/styles/fields", "must be an array of fields, got string")])
        #expect(F.errors(F.minimal(["data": ["fields": [], "custom_configuration_fields": []]])) == [
            FieldError("/data", "use either \"fields\" or the legacy \"custom_configuration_fields\", not both")
        ])
        #expect(F.errors(F.minimal(["general": ["fields": [5]]])) == [
            FieldError("/general/fields/0", "a field or group must be an object, got number")
        ])
        #expect(F.errors(F.minimal(["custom_configuration_fields": ["a": 1]])) == [
            FieldError("/custom_configuration_fields", "must be an array of fields, got object")
        ])
    }

    @Test func legacySectionListIsAccepted() throws {
        let m = try PluginManifest.parse(F.minimal([
            "general": ["custom_configuration_fields": [["key": "title", "type": "text_input", "initial_value": "Hi"]]]
        ]))
        #expect(m.fields(in: "general").map(\.key) == ["title"])
        #expect(m.initialValues(section: "general") == ["title": "Hi"])
        // … and its pointers use the legacy name.
        #expect(F.errors(F.minimal(["general": ["custom_configuration_fields": [["key": "t", "type": "nope"]]]])).first?.pointer
            == "/general/custom_configuration_fields/0/type")
    }

    @Test func fieldNeedsKeyAndType() {
        let errors = F.errors(F.minimal(["general": ["fields": [["label": "x"], ["key": "", "type": "switch"], ["key": 3, "type": 4]]]]))
        #expect(errors == [
            FieldError("/general/fields/0/key", "a field needs a \"key\""),
            FieldError("/general/fields/0/type", "a field needs a \"type\""),
            FieldError("/general/fields/1/key", "must not be empty"),
            FieldError("/general/fields/2/key", "must be a string, got number"),
            FieldError("/general/fields/2/type", "must be a string, got number"),
        ])
    }

    @Test func localizationWithoutTypeIsText() throws {
        let m = try PluginManifest.parse(F.minimal(["localizations": ["fields": [["key": "back", "initial_value": "Back"]]]]))
        #expect(m.field(section: "localizations", key: "back")?.type == .textInput)
        #expect(m.notes == [FieldError("/localizations/fields/0/type", "missing; a localization reads as text_input")])
    }

    @Test func unknownAndLegacyTypes() {
        let errors = F.errors(F.minimal(["general": ["fields": [["key": "a", "type": "slider"], ["key": "b", "type": "dropdown", "options": ["x"]]]]]))
        #expect(errors.map(\.pointer) == ["/general/fields/0/type", "/general/fields/1/type"])
        #expect(errors.first?.message.hasPrefix("unknown field type \"slider\"; known types: text_input, text_area,") == true)
        #expect(errors.last?.message == "\"dropdown\" is a legacy type, only accepted in the top-level custom_configuration_fields")
    }

    @Test("select-like fields need options", arguments: ["select", "multi_select", "tag_select"])
    func selectNeedsOptions(type: String) {
        let errors = F.errors(F.minimal(["styles": ["fields": [["key": "a", "type": .string(type)]]]]))
        #expect(errors == [FieldError("/styles/fields/0/options", "a \(type) field needs \"options\"")])
    }

    @Test func selectWithoutOptionsIsAllowedInData() throws {
        let m = try PluginManifest.parse(F.minimal(["data": ["fields": [["key": "source", "type": "select"]]]]))
        #expect(m.field(section: "data", key: "source")?.options == [])
    }

    @Test func optionShapes() throws {
        let errors = F.errors(F.minimal(["styles": ["fields": [
            ["key": "a", "type": "select", "options": [["text": "A"], ["value": "b"], ["text": "C", "value": ["c"]], true]],
            ["key": "b", "type": "select", "options": "x, y"],
        ]]]))
        #expect(errors == [
            FieldError("/styles/fields/0/options/0/value", "an option needs a \"value\""),
            FieldError("/styles/fields/0/options/1/text", "an option needs a \"text\""),
            FieldError("/styles/fields/0/options/2/value", "an option value must be a string, number or boolean, got array"),
            FieldError("/styles/fields/0/options/3", "an option must be {\"text\", \"value\"} or a string, got boolean"),
            FieldError("/styles/fields/1/options", "options must be an array of {\"text\", \"value\"} or of strings, got string"),
        ])
        let m = try PluginManifest.parse(F.minimal(["styles": ["fields": [
            ["key": "a", "type": "select", "options": ["x", ["text": "Why", "value": "y"], 3]]
        ]]]))
        #expect(m.field(section: "styles", key: "a")?.options == [
            ManifestOption(text: "x", value: "x"), ManifestOption(text: "Why", value: "y"), ManifestOption(text: "3", value: 3),
        ])
    }

    @Test func hiddenNeedsInitialValue() throws {
        #expect(F.errors(F.minimal(["styles": ["fields": [["key": "presentation", "type": "hidden"]]]])) == [
            FieldError("/styles/fields/0/initial_value", "a hidden field needs an initial_value")
        ])
        #expect(F.errors(F.minimal(["styles": ["fields": [["key": "presentation", "type": "hidden", "initial_value": nil]]]])) == [
            FieldError("/styles/fields/0/initial_value", "a hidden field needs an initial_value")
        ])
        let m = try PluginManifest.parse(F.minimal(["styles": ["fields": [["key": "hide", "type": "hidden", "initial_value": true]]]]))
        #expect(m.initialValues(section: "styles") == ["hide": true])
    }

    @Test func navBarSelectorKey() throws {
        #expect(F.errors(F.minimal(["general": ["fields": [["key": "nav_bar", "type": "nav_bar_selector"]]]])) == [
            FieldError("/general/fields/0/key", "a nav_bar_selector field must use the key \"nav_bar_id\"")
        ])
        _ = try PluginManifest.parse(F.minimal(["general": ["fields": [["key": "nav_bar_id", "type": "nav_bar_selector"]]]]))
    }

    @Test func preloadPluginsSelectorOnlyInHooks() throws {
        #expect(F.errors(F.minimal(["styles": ["fields": [["key": "preload_plugins", "type": "preload_plugins_selector"]]]])) == [
            FieldError("/styles/fields/0/type", "preload_plugins_selector is only allowed in the hooks section")
        ])
        #expect(F.errors(F.minimal(["hooks": ["fields": [["key": "plugins", "type": "preload_plugins_selector"]]]])) == [
            FieldError("/hooks/fields/0/key", "a preload_plugins_selector field must use the key \"preload_plugins\"")
        ])
        let bad = F.errors(F.minimal(["hooks": ["fields": [
            ["key": "preload_plugins", "type": "preload_plugins_selector", "initial_value": [["identifier": "x"]]]
        ]]]))
        #expect(bad == [FieldError("/hooks/fields/0/initial_value/0/type", "is required")])
    }

    @Test func conditionalFieldsMustPointAtAField() throws {
        let errors = F.errors(F.minimal(["styles": ["fields": [
            ["key": "mode", "type": "select", "options": ["a", "b"]],
            ["key": "x", "type": "text_input", "conditional_fields": [
                ["key": "styles/mode", "condition_value": "a"],
                ["key": "styles/missing", "condition_value": "a"],
                ["key": "mode", "condition_value": "a"],
                ["key": "layout/mode", "condition_value": "a"],
                ["key": "general/mode", "condition_value": "a"],
                ["key": "styles/mode"],
                "styles/mode",
            ]],
            ["key": "y", "type": "text_input", "conditional_fields": ["key": "styles/mode"]],
        ]]]))
        let sections = "general, styles, data, rules, advertising, assets, localizations, hooks"
        #expect(errors == [
            FieldError("/styles/fields/1/conditional_fields/2/key", "\"mode\" must be \"section/key\" with section one of \(sections)"),
            FieldError("/styles/fields/1/conditional_fields/3/key", "\"layout/mode\" must be \"section/key\" with section one of \(sections)"),
            FieldError("/styles/fields/1/conditional_fields/5/condition_value", "a condition needs a \"condition_value\""),
            FieldError(
                "/styles/fields/1/conditional_fields/6",
                "a condition must be an object {\"key\": \"section/key\", \"condition_value\": …}, got string"),
            FieldError("/styles/fields/2/conditional_fields", "conditional_fields must be an array, got object"),
            FieldError("/styles/fields/1/conditional_fields/1/key", "\"styles/missing\" does not name a field of this manifest"),
            FieldError("/styles/fields/1/conditional_fields/4/key", "\"general/mode\" does not name a field of this manifest"),
        ])
    }

    @Test func conditionsMayPointIntoGroupsOtherSectionsAndImplicitKeys() throws {
        let m = try PluginManifest.parse(F.minimal([
            "general": ["fields": [["group": true, "label": "G", "fields": [["key": "on", "type": "switch"]]]]],
            "styles": ["fields": [
                ["key": "c", "type": "color_picker", "rules": "all_conditions", "conditional_fields": [
                    ["key": "general/on", "condition_value": [true]],
                    ["key": "styles/family", "condition_value": "FAMILY_1"],
                ]]
            ]],
        ]))
        let c = try #require(m.field(section: "styles", key: "c"))
        #expect(c.matchAllConditions)
        #expect(c.conditions.map { "\($0.section)/\($0.key)" } == ["general/on", "styles/family"])
    }

    @Test func duplicateKeysWithinASection() throws {
        let errors = F.errors(F.minimal(["general": ["fields": [
            ["key": "a", "type": "text_input"],
            ["group": true, "label": "G", "fields": [["key": "a", "type": "switch"], ["key": "b", "type": "switch"]]],
            ["key": "b", "type": "text_input"],
        ]]]))
        #expect(errors == [
            FieldError("/general/fields/1/fields/0/key", "duplicate key \"a\" (already declared at /general/fields/0)"),
            FieldError("/general/fields/2/key", "duplicate key \"b\" (already declared at /general/fields/1/fields/1)"),
        ])
        // The same key in two sections is fine.
        _ = try PluginManifest.parse(F.minimal([
            "general": ["fields": [["key": "a", "type": "text_input"]]],
            "styles": ["fields": [["key": "a", "type": "text_input"]]],
        ]))
    }

    @Test func groups() {
        #expect(F.errors(F.minimal(["general": ["fields": [["group": true, "label": "G"]]]])) == [
            FieldError("/general/fields/0/fields", "a group needs \"fields\"")
        ])
        #expect(F.errors(F.minimal(["general": ["fields": [["group": "yes", "fields": []]]]])) == [
            FieldError("/general/fields/0/group", "must be a boolean, got string \"yes\"")
        ])
        #expect(F.errors(F.minimal(["general": ["fields": [["group": true, "folded": 2, "fields": "x"]]]])) == [
            FieldError("/general/fields/0/folded", "must be a boolean, got number 2"),
            FieldError("/general/fields/0/fields", "must be an array of fields, got string"),
        ])
    }

    @Test func fieldAttributeTypes() {
        let errors = F.errors(F.minimal(["general": ["fields": [
            ["key": "a", "type": "text_input", "label": ["x"], "placeholder": false, "mandatory": "no"]
        ]]]))
        #expect(errors == [
            FieldError("/general/fields/0/label", "must be a string, got array"),
            FieldError("/general/fields/0/placeholder", "must be a string, got boolean"),
            FieldError("/general/fields/0/mandatory", "must be a boolean, got string \"no\""),
        ])
    }

    @Test func initialValuesMustFitTheirType() {
        let errors = F.errors(F.minimal(["styles": ["fields": [
            ["key": "n", "type": "number_input", "initial_value": "big"],
            ["key": "s", "type": "switch", "initial_value": "yes"],
            ["key": "c", "type": "color_picker", "initial_value": "red"],
            ["key": "r", "type": "color_picker_rgba", "initial_value": "rgba(300, 0, 0, 1)"],
            ["key": "o", "type": "select", "options": ["a", "b"], "initial_value": "c"],
            ["key": "m", "type": "multi_select", "options": ["a", "b"], "initial_value": ["a", "z"]],
            ["key": "u", "type": "uploader", "initial_value": "not a url"],
            ["key": "t", "type": "text_input", "initial_value": ["x"]],
        ]]]))
        #expect(errors == [
            FieldError("/styles/fields/0/initial_value", "\"big\" is not a number"),
            FieldError("/styles/fields/1/initial_value", "\"yes\" is not true or false"),
            FieldError("/styles/fields/2/initial_value", "\"red\" is not a colour: expected \"#AARRGGBB\" or \"#RRGGBB\""),
            FieldError(
                "/styles/fields/3/initial_value",
                "\"rgba(300, 0, 0, 1)\" is not a colour: expected \"rgba(r, g, b, a)\" with r, g, b in 0…255 and a in 0…1"),
            FieldError("/styles/fields/4/initial_value", "\"c\" is not one of the options: \"a\", \"b\""),
            FieldError("/styles/fields/5/initial_value/1", "\"z\" is not one of the options: \"a\", \"b\""),
            FieldError("/styles/fields/6/initial_value", "\"not a url\" is not an http(s) URL"),
            FieldError("/styles/fields/7/initial_value", "expected a string, got array"),
        ])
    }

    @Test func textStyleNeedsAFormConfiguration() {
        #expect(F.errors(F.minimal(["styles": ["fields": [["key": "t", "type": "text_style"]]]])) == [
            FieldError("/styles/fields/0/form_configuration", "a text_style field needs \"form_configuration\": {\"sections\": [...]}")
        ])
        let nested = F.errors(F.minimal(["styles": ["fields": [["key": "t", "type": "text_style", "form_configuration": ["sections": [
            ["key": "one", "fields": [["key": "a", "type": "number_input", "initial_value": "x"], ["key": "a", "type": "text_input"]]],
            ["key": "one", "fields": []],
        ]]]]]]))
        #expect(nested == [
            FieldError("/styles/fields/0/form_configuration/sections/0/fields/0/initial_value", "\"x\" is not a number"),
            FieldError(
                "/styles/fields/0/form_configuration/sections/0/fields/1/key",
                "duplicate key \"a\" (already declared at /styles/fields/0/form_configuration/sections/0/fields/0)"),
            FieldError("/styles/fields/0/form_configuration/sections/1/key", "duplicate form section key \"one\""),
        ])
    }

    @Test func legacyConfigurationFieldsAreLoose() throws {
        let m = try PluginManifest.parse(F.minimal(["custom_configuration_fields": [
            ["section": "a", "key": "k", "type": "text", "default": 1],
            ["section": "b", "key": "k", "type": "checkbox", "default": "1"],
            ["key": "d", "type": "dropdown", "multiple": true, "options": ["x", "y"], "default": ["x"]],
        ]]))
        #expect(m.customConfigurationFields.allFields.map(\.initialValue) == ["1", "1", ["x"]])
        #expect(m.notes.isEmpty)
        #expect(m.raw == F.minimal(["custom_configuration_fields": [
            ["section": "a", "key": "k", "type": "text", "default": 1],
            ["section": "b", "key": "k", "type": "checkbox", "default": "1"],
            ["key": "d", "type": "dropdown", "multiple": true, "options": ["x", "y"], "default": ["x"]],
        ]]))
        #expect(F.errors(F.minimal(["custom_configuration_fields": [["key": "k", "type": "text"], ["key": "k", "type": "text"]]])) == [
            FieldError("/custom_configuration_fields/1/key", "duplicate key \"k\" (already declared at /custom_configuration_fields/0)")
        ])
    }
}

@Suite("Plugin manifests: normalisation")
struct PluginManifestNormalisationTests {
    typealias F = PluginFixtures

    @Test func looseValuesAreNormalisedInRawAndModelWithNotes() throws {
        let m = try PluginManifest.parse(F.minimal([
            "manifest_version": 2,
            "ui_builder_support": "true",
            "styles": ["fields": [
                ["key": "sw", "type": "switch", "initial_value": "false"],
                ["key": "cb", "type": "checkbox", "default": "0"],
                ["key": "size", "type": "number_input", "initial_value": "18"],
                ["key": "title", "type": "text_input", "initial_value": 12, "label": 5],
                ["key": "bg", "type": "select", "options": ["color", "image"], "initial_value": "Color"],
                ["key": "kind", "type": "tag_select", "options": [["text": "Text", "value": "text"]], "initial_value": "text"],
                ["key": "fg", "type": "color_picker_rgba", "initial_value": "rgb(84, 90, 92)"],
                ["key": "req", "type": "text_input", "mandatory": "true"],
            ]],
        ]))
        #expect(m.manifestVersion == "2")
        #expect(m.uiBuilderSupport)
        #expect(m.initialValues(section: "styles") == [
            "sw": false, "cb": "0", "size": "18", "title": "12", "bg": "color", "kind": "text", "fg": "rgba(84, 90, 92, 1)",
        ])
        #expect(m.field(section: "styles", key: "title")?.label == "5")
        #expect(m.field(section: "styles", key: "req")?.mandatory == true)

        let fields = try #require(m.raw["styles"]?["fields"]?.arrayValue)
        #expect(m.raw["manifest_version"] == "2")
        #expect(m.raw["ui_builder_support"] == true)
        // A switch is a boolean ("true"/"false" strings never stay); "1"/"0" and numbers written as
        // strings stay strings: plugin code reads them so (docs/spec/plugin-values.md).
        #expect(fields[0]["initial_value"] == false)
        #expect(m.field(section: "styles", key: "sw")?.valueForm == .boolean)
        #expect(m.field(section: "styles", key: "cb")?.valueForm == .oneOrZero)
        #expect(fields[1]["default"] == "0")
        #expect(fields[1]["initial_value"] == nil)
        #expect(fields[2]["initial_value"] == "18")
        #expect(m.field(section: "styles", key: "size")?.valuesAreText == true)
        #expect(fields[3]["initial_value"] == "12")
        #expect(fields[3]["label"] == "5")
        #expect(fields[4]["initial_value"] == "color")
        #expect(fields[5]["initial_value"] == "text")
        #expect(fields[6]["initial_value"] == "rgba(84, 90, 92, 1)")
        #expect(fields[7]["mandatory"] == true)
        // The field keeps its own normalised JSON too.
        #expect(m.field(section: "styles", key: "size")?.raw["initial_value"] == "18")
        #expect(m.field(section: "styles", key: "title")?.raw["label"] == "5")
        #expect(m.field(section: "styles", key: "req")?.raw["mandatory"] == true)

        #expect(m.notes == [
            FieldError("/manifest_version", "the number 2 was read as the string \"2\""),
            FieldError("/ui_builder_support", "the string \"true\" was read as the boolean true"),
            FieldError("/styles/fields/0/initial_value", "\"false\" was written as false: a switch is a JSON boolean"),
            FieldError("/styles/fields/3/label", "the number 5 was read as the string \"5\""),
            FieldError("/styles/fields/3/initial_value", "the number 12 was read as the string \"12\""),
            FieldError("/styles/fields/4/initial_value", "\"Color\" was read as the option value \"color\""),
            FieldError("/styles/fields/6/initial_value", "\"rgb(84, 90, 92)\" was read as \"rgba(84, 90, 92, 1)\""),
            FieldError("/styles/fields/7/mandatory", "the string \"true\" was read as the boolean true"),
        ])
    }

    @Test func fixtureNormalisations() throws {
        let admob = try PluginFixtures.manifest("manifest_qb_admob_inline_banner_ui_component_ios_qb.json")
        // The manifest writes "false" and "9": the switch is a boolean (its plugin reads
        // `loaded && background`, and "false" is truthy), the number stays a string.
        #expect(admob.initialValues(section: "styles")["background"] == false)
        #expect(admob.initialValues(section: "styles")["title_fontsize"] == "9")
        #expect(admob.notes.map(\.message) == ["\"false\" was written as false: a switch is a JSON boolean"])
        #expect(admob.validateValues(["background": "true", "title_fontsize": "10"], section: "styles", pointerPrefix: "") == [])
        #expect(admob.validateValues(["title_fontsize": "big"], section: "styles", pointerPrefix: "/s") == [FieldError("/s/title_fontsize", "\"big\" is not a number")])
        #expect(admob.normalizeValues(["title_fontsize": 11, "background": "true"], section: "styles").values == ["title_fontsize": "11", "background": true])

        let ftue = try PluginFixtures.manifest("manifest_zf_first_time_user_experience_screen_ios_for_quickbrick.json")
        #expect(ftue.initialValues(section: "styles")["top_button_type"] == "text")
        #expect(ftue.initialValues(section: "styles")["is_top_button_hidden"] == "0")

        let account = try PluginFixtures.manifest("manifest_zf_user_account_component_ui_component_ios.json")
        #expect(account.initialValues(section: "general")["account_component_instructions_fontcolor"] == "rgba(84, 90, 92, 1)")
        #expect(account.initialValues(section: "general")["account_component_instructions_fontsize"] == "26")

        let zappifest = try PluginFixtures.manifest("devportal_zappifest_example_manifest.json")
        #expect(zappifest.initialValues(section: "styles")["background_type"] == "color")
    }
}
