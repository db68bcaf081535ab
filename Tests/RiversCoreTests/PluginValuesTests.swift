import Foundation
import Testing

@testable import RiversCore

@Suite("Plugin values")
struct PluginValuesTests {
    typealias F = PluginFixtures

    @Test func parentLockInitialValues() throws {
        let lock = try F.manifest("manifest_qb_parent_lock_screen_ios_for_quickbrick.json")
        let general = lock.initialValues(section: "general")
        // 45 fields; the three uploaders have no initial value.
        #expect(lock.fields(in: "general").count == 45)
        #expect(general.count == 42)
        #expect(general["background_image"] == nil)
        #expect(general["close_button_image"] == nil)
        #expect(general["delete_icon_image"] == nil)

        // A switch is a boolean even where the manifest writes "true" (docs/spec/plugin-values.md).
        #expect(general["import_parent_lock"] == true)
        #expect(general["background_type"] == "Image")
        #expect(general["background_color"] == "rgba(22, 27, 38, 1)")
        #expect(general["close_button_position"] == "Right")
        #expect(general["instructions_text"] == "To continue, please enter the following code.")
        #expect(general["instructions_text_font_ios"] == "SFProText-Bold")
        #expect(general["instructions_text_font_android"] == "Roboto-Black")
        #expect(general["instructions_text_font_size"] == "18")
        #expect(general["instructions_text_transform"] == "None")
        #expect(general["challenge_text_font_color"] == "rgba(255, 255, 255, 0.65)")
        #expect(general["error_message_text_font_size"] == "14")
        #expect(general["keypad_corner_radius"] == "34")
        #expect(general["keypad_border_width"] == "2")

        // Every number_input came as a string and stays one (the plugin reads strings); every
        // value fits its field.
        for field in lock.fields(in: "general") where field.type == .numberInput {
            #expect(general[field.key]?.stringValue.flatMap { Double($0) } != nil, "\(field.key)")
        }
        #expect(lock.validateValues(.object(general), section: "general", pointerPrefix: "/general") == [])

        // The hooks section has a selector without an initial value; no other section exists.
        #expect(lock.initialValues(section: "hooks") == [:])
        #expect(lock.initialValues(section: "styles") == [:])
    }

    @Test func initialValuesOfEveryFixtureValidate() throws {
        for name in F.acceptedManifests {
            let m = try F.manifest(name)
            for section in m.presentSections {
                let errors = m.validateValues(.object(m.initialValues(section: section)), section: section, pointerPrefix: "/" + section)
                #expect(errors == [], "\(name) \(section)")
            }
        }
    }

    @Test func textStyleInitialValueIsBuiltFromNestedFields() throws {
        let m = try F.manifest("devportal_snippet_text-style-multiple-fields.json")
        #expect(m.initialValues(section: "styles") == [
            "multiple_fields_demo": [
                "section_one": ["my_number_input": 42, "my_select": "foo"],
                "another_parent_key": ["my_text_input": "foo BAR baz", "egg_or_ham": "ham", "my_number_input": 42],
                "a_lone_section": ["lone_text_input": "..."],
            ]
        ])
        let errors = m.validateValues(
            ["multiple_fields_demo": ["section_one": ["my_number_input": "x", "my_select": "baz"], "a_lone_section": 3]],
            section: "styles", pointerPrefix: "/styles")
        #expect(errors == [
            FieldError("/styles/multiple_fields_demo/section_one/my_number_input", "\"x\" is not a number"),
            FieldError("/styles/multiple_fields_demo/section_one/my_select", "\"baz\" is not one of the options: \"foo\", \"bar\""),
            FieldError("/styles/multiple_fields_demo/a_lone_section", "expected an object, got number"),
        ])
    }

    static let typed: JSONValue = PluginFixtures.minimal([
        "styles": ["fields": [
            ["key": "on", "type": "switch"],
            ["key": "size", "type": "number_input"],
            ["key": "mode", "type": "select", "options": ["a", "b"]],
            ["key": "tags", "type": "tag_select", "options": ["x", "y"]],
            ["key": "multi", "type": "multi_select", "options": [["text": "One", "value": 1], ["text": "Two", "value": 2]]],
            ["key": "hex", "type": "color_picker"],
            ["key": "rgba", "type": "color_picker_rgba"],
            ["key": "image", "type": "uploader"],
            ["key": "target", "type": "screen_selector"],
            ["key": "title", "type": "text_input", "mandatory": true],
            ["key": "font", "type": "ios_font_selector"],
            ["key": "secret", "type": "hidden", "initial_value": "s"],
        ]],
        "hooks": ["fields": [["key": "preload_plugins", "type": "preload_plugins_selector"]]],
    ])

    @Test func validValuesPass() throws {
        let m = try PluginManifest.parse(Self.typed)
        let values: JSONValue = [
            "on": true, "size": 12.5, "mode": "b", "tags": "x", "multi": [1, 2], "hex": "#FF00aa11", "rgba": "rgba(1,2,3,0.5)",
            "image": "https://cdn.example.com/a.png", "target": "87706774-8436-4273-87bd-9a5cfa9f37ff", "title": "Hello",
            "font": "Helvetica", "secret": ["anything": true], "extra_key_not_in_manifest": [1, 2, 3],
        ]
        #expect(m.validateValues(values, section: "styles", pointerPrefix: "/styles") == [])
        // Empty and null mean "not set".
        #expect(m.validateValues(["title": "t", "hex": "", "image": "", "size": nil, "tags": ""], section: "styles", pointerPrefix: "") == [])
        #expect(m.validateValues(["hex": "#abcdef", "title": "t"], section: "styles", pointerPrefix: "") == [])
        // A section the manifest does not declare accepts anything.
        #expect(m.validateValues(["whatever": 1], section: "advertising", pointerPrefix: "/advertising") == [])
        #expect(m.validateValues(["preload_plugins": [["identifier": "login", "type": "general", "weight": 1]]], section: "hooks", pointerPrefix: "/hooks") == [])
    }

    @Test func wrongValuesFailAtTheirPointer() throws {
        let m = try PluginManifest.parse(Self.typed)
        let values: JSONValue = [
            "on": "true", "size": "12", "mode": "c", "tags": "x", "multi": [1, 3], "hex": "#FFF", "rgba": "rgb(1,2,3)",
            "image": "ftp://example.com/a.png", "target": 5, "font": false,
        ]
        let errors = m.validateValues(values, section: "styles", pointerPrefix: "/screens/0/styles")
        #expect(errors == [
            FieldError("/screens/0/styles/mode", "\"c\" is not one of the options: \"a\", \"b\""),
            FieldError("/screens/0/styles/multi/1", "3 is not one of the options: 1, 2"),
            FieldError("/screens/0/styles/hex", "\"#FFF\" is not a colour: expected \"#AARRGGBB\" or \"#RRGGBB\""),
            FieldError(
                "/screens/0/styles/rgba",
                "\"rgb(1,2,3)\" is not a colour: expected \"rgba(r, g, b, a)\" with r, g, b in 0…255 and a in 0…1"),
            FieldError("/screens/0/styles/image", "\"ftp://example.com/a.png\" is not an http(s) URL"),
            FieldError("/screens/0/styles/target", "expected a string, got number 5"),
            FieldError("/screens/0/styles/title", "\"title\" is mandatory"),
            FieldError("/screens/0/styles/font", "expected a string, got boolean false"),
        ])
        #expect(m.validateValues(["title": ""], section: "styles", pointerPrefix: "/s") == [FieldError("/s/title", "\"title\" is mandatory")])
        #expect(m.validateValues(["title": nil], section: "styles", pointerPrefix: "/s") == [FieldError("/s/title", "\"title\" is mandatory")])
        #expect(m.validateValues("styles", section: "styles", pointerPrefix: "/s") == [FieldError("/s", "\"styles\" must be an object, got string")])
        #expect(m.validateValues(["preload_plugins": [["identifier": "x", "type": "general", "screen_id": "nope"]]], section: "hooks", pointerPrefix: "/hooks") == [
            FieldError("/hooks/preload_plugins/0/screen_id", "must be a UUID (got \"nope\")")
        ])
        #expect(m.validateValues(["preload_plugins": "x"], section: "hooks", pointerPrefix: "/hooks") == [
            FieldError("/hooks/preload_plugins", "expected an array of hooks, got string \"x\"")
        ])
    }

    @Test func parentLockValuesFail() throws {
        let lock = try F.manifest("manifest_qb_parent_lock_screen_ios_for_quickbrick.json")
        let errors = lock.validateValues(
            ["import_parent_lock": "yes", "background_type": "Video", "background_image": "not a url", "keypad_font_size": [28]],
            section: "general", pointerPrefix: "/general")
        #expect(errors == [
            FieldError("/general/import_parent_lock", "\"yes\" is not true or false"),
            FieldError("/general/background_type", "\"Video\" is not one of the options: \"Color\", \"Image\""),
            FieldError("/general/background_image", "\"not a url\" is not an http(s) URL"),
            FieldError("/general/keypad_font_size", "expected a number, got array"),
        ])
    }

    @Test func screenSelectorTargets() throws {
        let ftue = try F.manifest("manifest_zf_first_time_user_experience_screen_ios_for_quickbrick.json")
        let values: JSONValue = [
            "screen_selector_1": "87706774-8436-4273-87bd-9a5cfa9f37ff", "screen_selector_2": "", "screen_selector_4": "b",
            "flow_version": 1,
        ]
        #expect(ftue.screenTargets(values, section: "general") == ["87706774-8436-4273-87bd-9a5cfa9f37ff", "b"])
        #expect(ftue.screenTargets(values, section: "styles") == [])
    }

    @Test func mandatoryOnlyWhileConditionsHold() throws {
        let m = try PluginManifest.parse(F.minimal([
            "general": ["fields": [
                ["key": "kind", "type": "select", "options": ["none", "url"], "initial_value": "none"],
                ["key": "url", "type": "uploader", "mandatory": true, "conditional_fields": [["key": "general/kind", "condition_value": "url"]]],
                ["key": "both", "type": "text_input", "mandatory": true, "rules": "all_conditions", "conditional_fields": [
                    ["key": "general/kind", "condition_value": ["url"]],
                    ["key": "styles/family", "condition_value": "FAMILY_1"],
                ]],
            ]]
        ]))
        // Initial value "none": the conditional fields are hidden, so not required.
        #expect(m.validateValues([:], section: "general", pointerPrefix: "") == [])
        #expect(m.validateValues(["kind": "none"], section: "general", pointerPrefix: "") == [])
        // "url": both shown (conditions on another section count as holding).
        #expect(m.validateValues(["kind": "url"], section: "general", pointerPrefix: "") == [
            FieldError("/url", "\"url\" is mandatory"),
            FieldError("/both", "\"both\" is mandatory"),
        ])
        #expect(m.validateValues(["kind": "url", "url": "https://x.example/a.png", "both": "b"], section: "general", pointerPrefix: "") == [])
    }

    @Test func normalizeValuesCoercesLikeTheManifest() throws {
        let m = try PluginManifest.parse(Self.typed)
        let (values, notes) = m.normalizeValues(
            ["on": "true", "size": "12", "mode": "A", "tags": "x", "multi": ["1"], "title": 7, "rgba": "rgb(1, 2, 3)", "hex": "nope", "extra": "1"],
            section: "styles", pointerPrefix: "/styles")
        #expect(values == [
            "on": true, "size": "12", "mode": "a", "tags": "x", "multi": [1], "title": "7", "rgba": "rgba(1, 2, 3, 1)", "hex": "nope",
            "extra": "1",
        ])
        #expect(notes == [
            FieldError("/styles/on", "\"true\" was written as true: a switch is a JSON boolean"),
            FieldError("/styles/mode", "\"A\" was read as the option value \"a\""),
            FieldError("/styles/multi", "[\"1\"] was read as [1]"),
            FieldError("/styles/rgba", "\"rgb(1, 2, 3)\" was read as \"rgba(1, 2, 3, 1)\""),
            FieldError("/styles/title", "the number 7 was read as the string \"7\""),
        ])
        // What remains wrong is still reported by validation.
        #expect(m.validateValues(values, section: "styles", pointerPrefix: "/styles") == [
            FieldError("/styles/hex", "\"nope\" is not a colour: expected \"#AARRGGBB\" or \"#RRGGBB\"")
        ])
        // Not an object: unchanged.
        #expect(m.normalizeValues("x", section: "styles").values == "x")
    }
}
