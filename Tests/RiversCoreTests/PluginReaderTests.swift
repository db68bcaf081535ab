import Foundation
import Testing

@testable import RiversCore

/// Published plugin values read the way the plugins' own code reads them (docs/spec/plugin-values.md).
/// The readings are copied as a few lines of logic, not the plugins' code: JavaScript's `===` and
/// truthiness (QuickBrick plugins) and Java's `(String)` cast of a Gson map's value (Android plugins).
enum PluginReading {
    /// JavaScript `value === "text"`.
    static func strictlyEquals(_ value: JSONValue?, _ text: String) -> Bool { value == .string(text) }

    /// JavaScript `value === true`.
    static func isTrue(_ value: JSONValue?) -> Bool { value == .bool(true) }

    /// JavaScript truthiness (`loaded && background`): `false`, `0`, `""`, `null` and a missing key
    /// are false; every other value, the string `"false"` included, is true.
    static func truthy(_ value: JSONValue?) -> Bool {
        switch value {
        case nil, .null?: return false
        case .bool(let b)?: return b
        case .number(let n)?: return n != 0 && !n.isNaN
        case .string(let s)?: return !s.isEmpty
        case .array?, .object?: return true
        }
    }

    struct ClassCastException: Error {}

    /// Java `(String) styles.get(key)` on the `LinkedTreeMap` Gson reads: a JSON string is a
    /// `String`, a missing key or `null` is `null`; a number (`Double`), a boolean or anything else throws.
    static func javaString(_ value: JSONValue?) throws -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let s)?: return s
        default: throw ClassCastException()
        }
    }
}

@Suite("Plugin values as the plugins read them")
struct PluginReaderTests {
    typealias F = PluginFixtures
    typealias Read = PluginReading

    static let ftue = "manifest_zf_first_time_user_experience_screen_ios_for_quickbrick.json"
    static let admob = "manifest_qb_admob_inline_banner_ui_component_ios_qb.json"
    static let lockIOS = "manifest_qb_parent_lock_screen_ios_for_quickbrick.json"
    static let lockAndroid = "manifest_android_parent_lock_screen_plugin.json"

    static func registry(_ manifest: PluginManifest) -> PluginRegistry {
        PluginRegistry([manifest.identifier: .init(currentVersion: manifest.manifestVersion, versions: [manifest.manifestVersion: manifest])])
    }

    /// The values of `section` as published, for a screen (or, for a ui_component plugin, a
    /// component) created with `values` there, written the way a screen is written on create.
    static func published(_ manifest: PluginManifest, section: String, values: [String: JSONValue]) -> (JSONValue?, [FieldError]) {
        let registry = registry(manifest)
        var screen: Screen
        if manifest.isUIComponent {
            screen = Screen(id: PublishSample.homeId, name: "Ads", screenType: "ads_1", home: true, family: "FAMILY_1",
                            uiComponents: [Component(id: "ad", componentType: manifest.identifier, styles: values)])
        } else {
            screen = Screen(id: PublishSample.homeId, name: "Plugin", type: manifest.identifier, screenType: "plugin_1", home: true, family: "FAMILY_1")
            switch section {
            case "styles": screen.styles = values
            case "general": screen.general = values
            case "data": screen.data = values
            case "rules": screen.rules = values
            default: screen.advertising = values
            }
        }
        let written = registry.fillingComponentStyles(registry.preparingNew(screen))
        let document = RiversDocument.make(screens: [written], screenPlugins: registry.screenPluginInfo)
        let values = manifest.isUIComponent ? document.at(0, "ui_components", 0, "styles") : document.at(0, section)
        return (values, registry.check(written))
    }

    @Test("FTUE: the image button shows exactly when top_button_type is \"image\" (a plain string)")
    func ftueTopButtonType() throws {
        let m = try F.manifest(Self.ftue)
        #expect(Read.strictlyEquals(Self.published(m, section: "styles", values: [:]).0?["top_button_type"], "text"))
        for given: JSONValue in ["image", ["image"], "Image"] {
            let (styles, errors) = Self.published(m, section: "styles", values: ["top_button_type": given])
            #expect(Read.strictlyEquals(styles?["top_button_type"], "image"), "\(given.serializedString()): \(String(describing: styles?["top_button_type"]))")
            #expect(errors.isEmpty, "\(errors)")
        }
        let (text, _) = Self.published(m, section: "styles", values: ["top_button_type": ["text"]])
        #expect(!Read.strictlyEquals(text?["top_button_type"], "image"))
    }

    @Test("FTUE: a checkbox set hides its button (=== \"1\"), left at its default \"0\" it does not")
    func ftueCheckboxes() throws {
        let m = try F.manifest(Self.ftue)
        let checkboxes = m.fields(in: "styles").filter { $0.type == .checkbox }
        #expect(checkboxes.count == 4)
        let (defaults, _) = Self.published(m, section: "styles", values: [:])
        for field in checkboxes {
            #expect(!Read.strictlyEquals(defaults?[field.key], "1") && Read.strictlyEquals(defaults?[field.key], "0"), "\(field.key)")
            for on: JSONValue in [true, "true", "1"] {
                let (styles, errors) = Self.published(m, section: "styles", values: [field.key: on])
                #expect(Read.strictlyEquals(styles?[field.key], "1"), "\(field.key) \(on.serializedString())")
                #expect(errors.isEmpty, "\(errors)")
            }
            for off: JSONValue in [false, "false", "0"] {
                #expect(!Read.strictlyEquals(Self.published(m, section: "styles", values: [field.key: off]).0?[field.key], "1"))
            }
        }
    }

    @Test("AdMob: `loaded && background` draws the background exactly when the switch is on")
    func admobBackground() throws {
        let m = try F.manifest(Self.admob)
        let loaded = true
        func drawn(_ styles: JSONValue?) -> Bool { loaded && Read.truthy(styles?["background"]) }
        #expect(!drawn(Self.published(m, section: "styles", values: [:]).0), "left at its default (\"false\" in the manifest)")
        for on: JSONValue in [true, "true"] { #expect(drawn(Self.published(m, section: "styles", values: ["background": on]).0)) }
        for off: JSONValue in [false, "false"] { #expect(!drawn(Self.published(m, section: "styles", values: ["background": off]).0)) }
    }

    @Test("Android parent lock: `(String) styles.get(\"number_font_size\")` reads the digits, never throws")
    func androidParentLockCast() throws {
        let m = try F.manifest(Self.lockAndroid)
        #expect(try Read.javaString(Self.published(m, section: "styles", values: [:]).0?["number_font_size"]) == nil)
        for given: JSONValue in [24, "24"] {
            let (styles, errors) = Self.published(m, section: "styles", values: ["number_font_size": given])
            #expect(try Read.javaString(styles?["number_font_size"]) == "24")
            #expect(errors.isEmpty, "\(errors)")
        }
    }

    /// Every switch, checkbox, number and choice of the four manifests, at its default and at each
    /// other value, published as its form says and read as the plugin reads that form.
    @Test("every field of the FTUE, AdMob and parent-lock manifests, at its default and each other value",
          arguments: [ftue, admob, lockIOS, lockAndroid])
    func everyField(name: String) throws {
        let m = try F.manifest(name)
        var checked = 0
        for section in m.presentSections where section != "hooks" {
            for field in m.fields(in: section) {
                let start = field.startingValue
                var tries: [(given: JSONValue?, expected: JSONValue?)] = [(nil, start)]
                switch field.valueForm {
                case .boolean:
                    tries += [(true, .bool(true)), (false, .bool(false)), ("true", .bool(true)), ("false", .bool(false))]
                case .oneOrZero:
                    tries += [(true, "1"), (false, "0"), ("true", "1"), ("false", "0")]
                case .number:
                    tries += [(20, 20), ("20", 20)]
                case .numberText:
                    tries += [(20, "20"), ("20", "20")]
                case .choice:
                    tries += field.allOptions.flatMap { [($0.value, $0.value), (.array([$0.value]), $0.value)] }
                case .choices, .asTyped:
                    continue
                }
                for (given, expected) in tries {
                    let values: [String: JSONValue] = given.map { [field.key: $0] } ?? [:]
                    let (published, errors) = Self.published(m, section: section, values: values)
                    let value = published?[field.key]
                    let label = "\(name) \(section)/\(field.key) given \(given?.serializedString() ?? "nothing")"
                    #expect(value == expected, "\(label): published \(value?.serializedString() ?? "nothing")")
                    #expect(!errors.contains { $0.pointer.hasSuffix("/\(field.key)") }, "\(label): \(errors)")
                    switch field.valueForm {
                    case .boolean:
                        // Truthiness, `=== true`, `=== "1" || === true`: all agree with the state.
                        let on = expected == .bool(true)
                        #expect(Read.truthy(value) == on && Read.isTrue(value) == on, "\(label)")
                        #expect((Read.strictlyEquals(value, "1") || Read.isTrue(value)) == on, "\(label)")
                    case .oneOrZero:
                        #expect(Read.strictlyEquals(value, "1") == (expected == "1"), "\(label)")
                    case .numberText:
                        // The Android cast reads a string (or nothing) and never throws.
                        #expect(throws: Never.self) { try Read.javaString(value) }
                    case .number:
                        #expect(value == nil || value?.numberValue != nil, "\(label)")
                    case .choice:
                        if case .string(let s)? = expected { #expect(Read.strictlyEquals(value, s), "\(label)") }
                    case .choices, .asTyped:
                        break
                    }
                    checked += 1
                }
            }
        }
        #expect(checked > 0)
    }
}
