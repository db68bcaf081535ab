import Foundation
import Testing

@testable import RiversCore

/// The pure half of the hardening: what the parser and the readers refuse, and where.
@Suite("Limits and hostile input")
struct LimitsTests {
    func parse(_ text: String) -> Result<JSONValue, JSONParseError> {
        Result { () throws(JSONParseError) in try JSONValue.parse(Array(text.utf8)) }
    }

    func parseBytes(_ bytes: [UInt8]) -> Result<JSONValue, JSONParseError> {
        Result { () throws(JSONParseError) in try JSONValue.parse(bytes) }
    }

    @Test func numbersTooLargeForADoubleAreRefusedAtTheirPointer() throws {
        guard case .failure(let e) = parse(#"{"a": [1, {"b": 1e400}]}"#) else { Issue.record("1e400 parsed"); return }
        #expect(e.pointer == "/a/1/b")
        guard case .failure(let neg) = parse("[-1e309]") else { Issue.record("-1e309 parsed"); return }
        #expect(neg.pointer == "/0")
        // Tiny numbers are fine: they underflow to zero, which is finite.
        #expect(try parse("1e-400").get() == .number(0))
        #expect(try parse("-0").get().numberValue == 0)
    }

    @Test func nulCharactersAreRefusedAtTheirPointer() throws {
        guard case .failure(let value) = parse(#"{"name": "a\u0000b"}"#) else { Issue.record("NUL parsed"); return }
        #expect(value.pointer == "/name")
        guard case .failure(let key) = parse(#"{"styles": {"k\u0000": 1}}"#) else { Issue.record("NUL key parsed"); return }
        #expect(key.pointer == "/styles/k\u{0}")
        #expect(key.description.contains("member name"))
        // Other escapes still work, and a NUL in one string does not leak into the next.
        #expect(try parse(#"["a\u0001", "\u00e9"]"#).get() == ["a\u{1}", "é"])
    }

    @Test func invalidUTF8IsMalformedNotReplaced() throws {
        for bytes: [UInt8] in [
            Array(#"{"name": ""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8),
            Array(#"["a\n"#.utf8) + [0xC3] + Array(#"", 1]"#.utf8),  // a lone lead byte after an escape
            Array(#"[""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""]"#.utf8),  // an encoded surrogate
        ] {
            guard case .failure(let e) = parseBytes(bytes) else { Issue.record("invalid UTF-8 parsed: \(bytes)"); continue }
            #expect(e.pointer == nil, "malformed, not a bad value")
            #expect(e.description.contains("UTF-8"))
        }
        #expect(try parseBytes(Array(#"["héllo ✓ 🎉"]"#.utf8)).get() == ["héllo ✓ 🎉"])
    }

    @Test func nestingIsBounded() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        guard case .failure(let e) = parse(deep) else { Issue.record("deep nesting parsed"); return }
        #expect(e.pointer == nil)
        #expect(e.description.contains("64"))
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect((try? parse(ok).get()) != nil)
    }

    @Test func problemsKeepTheFirstHundredAndCountAll() {
        let problems = Problems()
        for i in 0..<1_000 { problems.add("/x/\(i)", "bad") }
        #expect(problems.errors.count == Limits.maxProblems)
        #expect(problems.count == 1_000)
        #expect(problems.errors.last?.pointer == "/x/99")
        let outer = Problems()
        outer.add("/a", "bad")
        outer.add(problems, under: "/screen")
        #expect(outer.count == 1_001)
        #expect(outer.errors.count == Limits.maxProblems)
        #expect(outer.errors[1].pointer == "/screen/x/0")
        let failure = ValidationFailure((0..<500).map { FieldError("/\($0)", "bad") })
        #expect(failure.errors.count == 100 && failure.count == 500)
    }

    @Test func readerNumbersHaveRanges() {
        let problems = Problems()
        let r = ObjectReader(["huge": 1e300, "whole": 1e19, "ok": 12, "neg": -1e19], at: "", problems: problems)!
        #expect(r.number("huge") == nil)
        #expect(r.integer("whole") == nil)  // never reaches Int(): 1e19 does not fit
        #expect(r.integer("neg", minimum: 0) == nil)
        #expect(r.integer("ok", maximum: 10) == nil)
        #expect(r.integer("ok", maximum: 12) == 12)
        #expect(problems.errors.map(\.pointer) == ["/huge", "/whole", "/neg", "/ok"])
    }

    func family(_ body: JSONValue) -> (Family?, [FieldError]) {
        let problems = Problems()
        return (Family.read(body, problems: problems), problems.errors)
    }

    @Test func familyLengthsAndCountsAreBounded() {
        let base: [String: JSONValue] = [
            "id": "F", "name": "F", "reference_size": ["width": 320, "height": 568],
            "cell_styles": [["id": "A", "columns": 1, "height": 10]],
        ]
        var tall = base
        tall["reference_size"] = ["width": 320, "height": 1e308]
        #expect(family(.object(tall)).1.map(\.pointer) == ["/reference_size/height"])
        var thin = base
        thin["cell_styles"] = [["id": "A", "columns": 1, "aspect_ratio": 1e-310]]
        #expect(family(.object(thin)).1.map(\.pointer) == ["/cell_styles/0/aspect_ratio"])
        var many = base
        many["cell_styles"] = .array((0..<201).map { ["id": .string("S_\($0)"), "columns": 1, "height": 10] })
        #expect(family(.object(many)).1.map(\.pointer) == ["/cell_styles"])
        var enough = base
        enough["cell_styles"] = .array((0..<200).map { ["id": .string("S_\($0)"), "columns": 1, "height": 10] })
        let (read, errors) = family(.object(enough))
        #expect(errors.isEmpty)
        #expect(read?.cellStyle("S_199")?.id == "S_199")
        #expect(read?.cellStyle("S_200") == nil)
    }

    @Test func unknownCellStylesDoNotListTheFamily() throws {
        let styles: [CellStyle] = (0..<200).map { CellStyle(id: "STYLE_\($0)", width: .columns(1), height: .points(10)) }
        let family = Family(id: "F", name: "F", referenceSize: Size(width: 320, height: 568), cellStyles: styles)
        let components: JSONValue = [["component_type": "list", "cell_styles": .array((0..<20).map { .string("NOPE_\($0)") })]]
        let errors = References.checkCellStyles(json: components, family: family, familyId: "F")
        #expect(errors.count == 20)
        #expect(errors.allSatisfy { !$0.message.contains("STYLE_1") && $0.message.utf8.count < 200 })
    }

    @Test func screensHoldABoundedNumberOfComponents() {
        let one: JSONValue = ["component_type": "list", "cell_styles": ["A"]]
        let group: JSONValue = ["component_type": "group", "ui_components": .array(Array(repeating: one, count: 150))]
        let problems = Problems()
        let read = Component.readList([group, group], at: "/ui_components", catalog: .builtIn, problems: problems)
        #expect(read.isEmpty)
        #expect(problems.errors.map(\.pointer) == ["/ui_components"])
        #expect(problems.errors.first?.message.contains("302") == true)
        let fine = Problems()
        #expect(Component.readList([group], at: "/ui_components", catalog: .builtIn, problems: fine).count == 1)
        #expect(fine.isEmpty)
    }

    @Test func itemLimitsAreBounded() {
        let problems = Problems()
        let list: JSONValue = ["component_type": "list", "cell_styles": ["A"], "rules": ["item_limit": 1_000_000]]
        #expect(Component.readList([list], at: "/ui_components", catalog: .builtIn, problems: problems).isEmpty)
        #expect(problems.errors.map(\.pointer) == ["/ui_components/0/rules/item_limit"])
    }

    @Test func webLinksAreOnlyWhatAppsCanOpen() {
        for good in ["https://example.com", "http://example.com/a?b=c", "myapp://show/1", "com.example.app://x"] {
            #expect(NavItemData.isOpenableLink(good), "\(good)")
        }
        for bad in [
            "javascript:alert(1)", "JavaScript://%0aalert(1)", " javascript:alert(1)", "data:text/html,<b>", "vbscript:msgbox",
            "file:///etc/passwd", "https://", "example.com", "//example.com", "https://exa mple.com", "1http://x", "http:/x",
        ] {
            #expect(!NavItemData.isOpenableLink(bad), "\(bad)")
        }
        let (_, errors) = NavItemData.parse(["type": "WEB_URL", "source": "javascript:alert(1)"], pointer: "/d")
        #expect(errors.map(\.pointer) == ["/d/source"])
    }

    @Test func pluginIdentifiersKeepToTheirAlphabet() {
        for good in ["demo", "parent-lock-qb", "video_360", "com.example.login", "A1"] {
            #expect(PluginManifest.isValidIdentifier(good), "\(good)")
        }
        for bad in ["a/b", "q?x=1#f", "../../x", "a b", "", ".hidden", "-x", "é", String(repeating: "a", count: 101)] {
            #expect(!PluginManifest.isValidIdentifier(bad), "\(bad)")
        }
    }
}

/// The parser against random damage to real documents (a seeded, repeatable fuzz): it never traps,
/// it never accepts what Foundation's parser refuses, and what it accepts writes back to itself.
@Suite("JSON parser fuzz")
struct JSONParserFuzzTests {
    /// SplitMix64: the same seed gives the same cases on every machine.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let seeds: [UInt8] = Array(#"{}[],:"\-0123456789.eE+truefalsnl \u0000"#.utf8) + [0x00, 0x0A, 0xC3, 0xA9, 0xFF, 0xED, 0xF0]

    @Test("10,000 damaged documents: no trap, no false accept, round trips")
    func damagedDocuments() throws {
        let folder = try PluginFixtures.directory()
        let sources = try ["devportal_API_md_example.json", "devportal_screen_plugin_rivers_entry.json", "manifest_zee5_home_screen_native_ios.json"]
            .map { Array(try Data(contentsOf: folder.appendingPathComponent($0))) }
        var random = Seeded(state: 1234)
        var accepted = 0
        for _ in 0..<10_000 {
            var bytes = sources[Int.random(in: 0..<sources.count, using: &random)]
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: bytes[at] = Self.seeds.randomElement(using: &random)!
                case 1: bytes.remove(at: at)
                case 2: bytes.insert(Self.seeds.randomElement(using: &random)!, at: at)
                default: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...40, using: &random)))
                }
                if bytes.isEmpty { bytes = [0x5B] }
            }
            guard let value = try? JSONValue.parse(bytes) else { continue }
            accepted += 1
            #expect((try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) != nil,
                    "accepted what Foundation refuses: \(String(decoding: bytes, as: UTF8.self).prefix(200))")
            #expect((try? JSONValue.parse(value.serialized())) == value, "does not round-trip")
        }
        // Some damage leaves valid JSON (inside strings, say): the accept path is exercised too.
        #expect(accepted > 100)
    }
}
