import Foundation
import RiversCore
import Testing

/// Issue 11's rule for import: every real fixture document imports, publishes, and the published
/// document compares key by key with the original, no value lost or retyped. The differences
/// allowed are the ones `docs/spec/client-keys.md` lists ("Import round trip"); `RoundTrip`
/// below encodes exactly those, and reports anything else.
@Suite("Import round trip: real documents publish back key for key")
struct RoundTripTests {
    /// The screen plugins each valid fixture document needs registered.
    static let plugins: [String: [String]] = ["devportal_screen_plugin_rivers_entry.json": ["settings_contact_us_legacy"]]

    @Test(arguments: ["devportal_API_md_example.json", "devportal_android_md_example.json", "devportal_screen_plugin_rivers_entry.json"])
    func publishedDocumentMatchesTheOriginal(_ name: String) async throws {
        let plugins = Self.plugins[name] ?? []
        try await withAPI { api in
            for identifier in plugins {
                let manifest: JSONValue = [
                    "identifier": .string(identifier), "manifest_version": "1.0.0", "name": "Contact us", "type": "general",
                    "description": "A screen plugin", "author_name": "A", "author_email": "a@example.com", "min_zapp_sdk": "1.0.0",
                    "ui_builder_support": true, "screen": true,
                ]
                try await api.create("plugins", manifest)
            }
            let original = try fixture(name)
            let originals = original.arrayValue ?? [original]
            // `home` is kept as the document says: an app needs one home screen to publish, so
            // one that names none goes into an app with a home screen of its own.
            let namesAHome = originals.contains { $0["home"] == true || $0["home"] == "true" }
            if !namesAHome {
                try await api.create("families", phoneFamily)
                try await api.create("screens", screenBody("Home"))
            }
            let imported = try await api.request(.post, "import", json: original)
            try #require(imported.status == .created, "\(imported.text)")
            #expect(imported["warnings"]?.arrayValue?.contains { $0["pointer"] == "" } == false, "no warning about the home screen")
            let published = try await api.request(.post, "publish")
            try #require(published.status == .created, "\(published.text)")
            let served = try await api.request(.get, "/rivers/\(api.app.slug)/rivers.json", authorized: false)
            let all = try #require(served.json.arrayValue)
            let screens = originals.compactMap { theirs in all.first { $0["id"] == theirs["id"].map { .string($0.stringValue?.lowercased() ?? "") } } }
            #expect(screens.count == originals.count)
            for (i, (theirs, ours)) in zip(originals, screens).enumerated() {
                let differences = RoundTrip.differences(screen: theirs, published: ours, at: "/\(i)")
                #expect(differences.isEmpty, "\(name):\n\(differences.joined(separator: "\n"))")
            }
        }
    }

    @Test func theComparisonCatchesALostOrRetypedValue() {
        let original: JSONValue = ["id": "a", "name": "A", "styles": ["color": "red"], "ui_components": [
            ["component_type": "list", "rules": ["item_limit": "6"], "data": ["source": "1", "type": "X"]],
        ]]
        var published = original.mergePatched(with: ["styles": ["color": nil]])
        #expect(RoundTrip.differences(screen: original, published: published, at: "") == ["/styles/color: lost"])
        published = original.mergePatched(with: ["name": 5])
        #expect(RoundTrip.differences(screen: original, published: published, at: "") == ["/name: \"A\" became 5"])
        published = original.mergePatched(with: ["surprise": true])
        #expect(RoundTrip.differences(screen: original, published: published, at: "") == ["/surprise: added"])
    }
}

/// The allowed differences between a document and its re-published form.
enum RoundTrip {
    /// Members Rivers always writes on a screen, with the value it writes when the original had none
    /// (nil: any value, e.g. a generated `screen_type`).
    static let screenDefaults: [String: JSONValue?] = [
        "advertising": [:], "data": [:], "general": [:], "home": false, "home_offline": false,
        "hooks": ["preload_plugins": [], "postload_plugins": []], "navigations": [], "rules": [:], "screen_type": nil,
        "styles": nil, "supports_offline": false, "type": "general_content", "ui_components": [],
    ]
    static let decoration: JSONValue = ["visible": false, "style": nil]

    /// What a special member compares to: nil when the ordinary rule applies.
    typealias Special = (_ key: String, _ original: JSONValue, _ published: JSONValue, _ pointer: String) -> [String]?

    static func differences(screen original: JSONValue, published: JSONValue, at pointer: String) -> [String] {
        compareObject(original, published, at: pointer, added: screenDefaults) { key, a, b, p in
            switch key {
            // The screen's family is written into its styles.
            case "styles": return compareObject(a, b, at: p, added: ["family": nil])
            case "ui_components": return compareComponents(a, b, at: p)
            default: return nil
            }
        }
    }

    /// A number written as its text (`item_limit`, a feed id in `source`).
    static func numberAsText(_ a: JSONValue, _ b: JSONValue, at p: String) -> [String]? {
        guard let n = a.numberValue else { return nil }
        return b == .string(JSONValue.number(n).serializedString()) ? [] : ["\(p): \(a.serializedString()) became \(b.serializedString())"]
    }

    static func compareComponents(_ original: JSONValue, _ published: JSONValue, at pointer: String) -> [String] {
        let a = original.arrayValue ?? [], b = published.arrayValue ?? []
        var out: [String] = []
        if a.count != b.count { out.append("\(pointer): \(a.count) components became \(b.count)") }
        for (i, (x, y)) in zip(a, b).enumerated() {
            let p = "\(pointer)/\(i)"
            // Generated ids where there were none; positions numbered 1… in order.
            if let position = y["position"], position != .number(Double(i + 1)) { out.append("\(p)/position: \(position.serializedString()) is not \(i + 1)") }
            let added: [String: JSONValue?] = ["id": nil, "position": nil, "rules": [:], "data": ["source": "", "type": ""], "ui_components": []]
            out += compareObject(x, y, at: p, added: added) { key, a, b, p in
                switch key {
                case "position": return []
                case "styles":
                    return compareObject(a, b, at: p, added: ["family": nil, "cell_styles": [], "header": decoration, "footer": decoration]) { key, a, b, p in
                        key == "header" || key == "footer" ? compareObject(a, b, at: p, added: ["visible": false, "style": nil]) : nil
                    }
                case "rules":
                    // The item limit is a string in every real document.
                    return compareObject(a, b, at: p, added: [:]) { key, a, b, p in key == "item_limit" ? numberAsText(a, b, at: p) : nil }
                case "data":
                    return compareObject(a, b, at: p, added: ["source": "", "type": ""]) { key, a, b, p in key == "source" ? numberAsText(a, b, at: p) : nil }
                case "ui_components": return compareComponents(a, b, at: p)
                default: return nil
                }
            }
        }
        return out
    }

    /// Every member of `original` is in `published` with the same value (or as `special` decides);
    /// a member only `published` has must be in `added`, with that value unless it is nil.
    static func compareObject(
        _ original: JSONValue, _ published: JSONValue, at pointer: String, added: [String: JSONValue?], special: Special = { _, _, _, _ in nil }
    ) -> [String] {
        guard let a = original.objectValue, let b = published.objectValue else {
            return original == published ? [] : ["\(pointer): \(original.serializedString().prefix(200)) became \(published.serializedString().prefix(200))"]
        }
        var out: [String] = []
        for key in a.keys.sorted() {
            let p = "\(pointer)/\(key)"
            guard let value = b[key] else {
                out.append("\(p): lost")
                continue
            }
            if let result = special(key, a[key]!, value, p) {
                out += result
            } else if a[key]! != value {
                out.append("\(p): \(a[key]!.serializedString().prefix(200)) became \(value.serializedString().prefix(200))")
            }
        }
        for key in b.keys.sorted() where a[key] == nil {
            let p = "\(pointer)/\(key)"
            guard let allowed = added[key] else {
                out.append("\(p): added")
                continue
            }
            if let expected = allowed, b[key]! != expected { out.append("\(p): added as \(b[key]!.serializedString().prefix(200)), not \(expected.serializedString())") }
        }
        return out
    }
}
