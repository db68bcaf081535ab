import Foundation
import Testing

@testable import RiversCore

@Suite("Plugin forms")
struct PluginFormTests {
    func encoded(_ form: PluginForm) throws -> JSONValue {
        try JSONValue.parse(Array(try JSONEncoder().encode(form)))
    }

    @Test func admobFormKeyByKey() throws {
        let manifest = try PluginFixtures.manifest("manifest_qb_admob_inline_banner_ui_component_ios_qb.json")
        let form = manifest.form()
        let json = try encoded(form)

        #expect(json.objectValue.map { Set($0.keys) } == [
            "identifier", "name", "type", "screen", "ui_component", "can_have_components", "sections",
            "custom_configuration_fields",
        ])
        #expect(json["identifier"] == "google-admob-inline-banner-qb")
        #expect(json["name"] == "Google Admob Inline Banner Ads")
        #expect(json["type"] == "ui_component")
        #expect(json["screen"] == false)
        #expect(json["ui_component"] == true)
        #expect(json["can_have_components"] == false)

        let sections = try #require(json["sections"]?.arrayValue)
        #expect(sections.count == 1)
        #expect(sections[0]["name"] == "styles")
        let fields = try #require(sections[0]["fields"]?.arrayValue)
        #expect(fields.compactMap { $0["key"]?.stringValue } == [
            "banner_ad_unit", "banner_ad_type", "background", "background_color", "title_text", "title_font_android",
            "title_font_ios", "title_fontsize", "title_fontcolor", "title_tablet_fontsize",
        ])

        let fieldKeys: Set<String> = [
            "key", "type", "label", "placeholder", "initial_value", "options", "mandatory", "conditions",
            "conditions_match", "conditional_options", "form_sections", "value_form",
        ]
        for field in fields {
            #expect(field.objectValue.map { Set($0.keys) } == fieldKeys)
        }

        // A text input with an empty initial value.
        #expect(fields[0] == [
            "key": "banner_ad_unit", "type": "text_input", "label": "Banner Ad Unit", "placeholder": nil,
            "initial_value": "", "options": [], "mandatory": false, "conditions": [], "conditions_match": "any",
            "conditional_options": [], "form_sections": nil, "value_form": "as_typed",
        ])
        // A select with options and a placeholder, no initial value.
        #expect(fields[1]["key"] == "banner_ad_type")
        #expect(fields[1]["type"] == "select")
        #expect(fields[1]["label"] == "Type")
        #expect(fields[1]["placeholder"] == "Select a banner type")
        #expect(fields[1]["initial_value"] == nil as JSONValue)
        #expect(fields[1]["options"] == [
            ["text": "Standard Banner", "value": "standard_banner"],
            ["text": "Smart Banner", "value": "smart_banner"],
            ["text": "Adaptive Banner", "value": "adaptive_banner"],
            ["text": "Box Banner", "value": "box_banner"],
        ])
        // A switch whose "false" is the boolean false (docs/spec/plugin-values.md), shown under one condition.
        #expect(fields[2]["type"] == "switch")
        #expect(fields[2]["initial_value"] == false)
        #expect(fields[2]["value_form"] == "boolean")
        #expect(fields[2]["conditions"] == [["section": "styles", "key": "banner_ad_type", "value": ["standard_banner", "box_banner"]]])
        #expect(fields[2]["conditions_match"] == "any")
        // Two conditions that must all hold.
        #expect(fields[3]["type"] == "color_picker_rgba")
        #expect(fields[3]["initial_value"] == "rgba(0, 0, 0, 1)")
        #expect(fields[3]["conditions"] == [
            ["section": "styles", "key": "background", "value": [true]],
            ["section": "styles", "key": "banner_ad_type", "value": ["standard_banner", "box_banner"]],
        ])
        #expect(fields[3]["conditions_match"] == "all")
        // A field without a label; "9" stays "9".
        #expect(fields[7]["key"] == "title_fontsize")
        #expect(fields[7]["type"] == "number_input")
        #expect(fields[7]["label"] == nil as JSONValue)
        #expect(fields[7]["initial_value"] == "9")
        #expect(fields[7]["value_form"] == "number_text")
        #expect(fields[9]["initial_value"] == "12")
        #expect(fields[5]["type"] == "android_font_selector")
        #expect(fields[5]["initial_value"] == "Roboto-Bold")

        #expect(json["custom_configuration_fields"] == [[
            "key": "plist.GADApplicationIdentifier", "type": "text_input", "label": "AdMob Application Identifier",
            "placeholder": nil, "initial_value": nil, "options": [], "mandatory": false, "conditions": [],
            "conditions_match": "any", "conditional_options": [], "form_sections": nil, "value_form": "as_typed",
        ]])

        // Decoding gives the same form back.
        let decoded = try JSONDecoder().decode(PluginForm.self, from: Data(json.serialized()))
        #expect(decoded == form)
    }

    @Test func groupsAndPlainStringOptions() throws {
        let manifest = try PluginFixtures.manifest("manifest_zee5_home_screen_native_ios.json")
        let json = try encoded(manifest.form())
        let sections = try #require(json["sections"]?.arrayValue)
        #expect(sections.map { $0["name"] } == ["general", "data"])
        let general = try #require(sections[0]["fields"]?.arrayValue)
        #expect(general.count == 8)
        let group = general[7]
        #expect(group.objectValue.map { Set($0.keys) } == ["group", "label", "folded", "fields"])
        #expect(group["group"] == true)
        #expect(group["label"] == "Screen Type")
        #expect(group["folded"] == true)
        #expect(group["fields"]?.arrayValue?.first?["options"] == [
            ["text": "DEFAULT", "value": "DEFAULT"], ["text": "EPG", "value": "EPG"], ["text": "SEARCH", "value": "SEARCH"],
        ])
        #expect(group["fields"]?.arrayValue?.first?["initial_value"] == "DEFAULT")
        let decoded = try JSONDecoder().decode(PluginForm.self, from: Data(json.serialized()))
        #expect(decoded == manifest.form())
    }

    @Test func conditionalOptionsAndTextStyle() throws {
        let zappifest = try PluginFixtures.manifest("devportal_zappifest_example_manifest.json")
        let styles = try #require(try encoded(zappifest.form())["sections"]?.arrayValue?.first { $0["name"] == "styles" })
        let cells = try #require(styles["fields"]?.arrayValue?.last)
        #expect(cells["key"] == "cell_styles")
        #expect(cells["options"] == [])
        #expect(cells["conditional_options"] == [
            ["section": "styles", "key": "family", "value": "FAMILY_1", "options": [
                ["text": "cell 1", "value": "cell_1"], ["text": "cell 2", "value": "cell_2"],
            ]],
            ["section": "styles", "key": "family", "value": "FAMILY_2", "options": [["text": "cell 3", "value": "cell_3"]]],
        ])

        let text = try PluginFixtures.manifest("devportal_snippet_text-style-single-field.json")
        let field = try #require(try encoded(text.form())["sections"]?.arrayValue?.first { $0["name"] == "styles" }?["fields"]?.arrayValue?.first)
        #expect(field["type"] == "text_style")
        #expect(field["initial_value"] == nil as JSONValue)
        #expect(field["form_sections"] == [[
            "key": "section_1", "label": "section 1", "fields": [[
                "key": "my_text_input", "type": "text_input", "label": "Text", "placeholder": "type here...",
                "initial_value": nil, "options": [], "mandatory": false, "conditions": [], "conditions_match": "any",
                "conditional_options": [], "form_sections": nil, "value_form": "as_typed",
            ]],
        ]])
    }
}
