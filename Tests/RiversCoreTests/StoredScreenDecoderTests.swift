import Foundation
import Testing

@testable import RiversCore

/// Issue 26: a publish decodes stored screens straight into types. The fast path must never be a
/// second set of rules: on every text it either gives exactly the screen `Screen.read` gives (with
/// no problem), or nothing (and the text is read the full way). Held to that over valid screens
/// written in any key order and spacing, and over thousands of damaged ones.
@Suite("Stored screens decoded straight into types")
struct StoredScreenDecoderTests {
    /// Option sets a stored screen is read with: the publish's (anything the app stored), an
    /// API write's (built-in navigations, no hook plugins), and a catalog without `hero`.
    static let optionSets: [Screen.ReadOptions] = {
        var publish = Screen.ReadOptions(pluginScreenTypes: PublishSample.pluginTypes, navigationTypes: nil, hookPlugins: nil)
        publish.catalog = ComponentCatalog(ComponentType.builtIn + [ComponentType(
            id: "banner", name: "banner", axis: .vertical, needsDataSource: false, holdsChildren: false, description: "")])
        let api = Screen.ReadOptions(hookPlugins: ["known_hook"])
        var noHero = api
        noHero.catalog = ComponentCatalog(ComponentType.builtIn.filter { $0.id != "hero" })
        return [publish, api, noHero]
    }()

    /// The screens the full reader reads (with the publish's options).
    static func validScreens() throws -> [Screen] {
        try screens().filter { screen in
            let problems = Problems()
            return Screen.read(storedText(screen), options: optionSets[0], problems: problems) != nil && problems.isEmpty
        }
    }

    static func screens() throws -> [Screen] {
        var screens = try ScreenEditTests.bases() + PublishSample.app()
        var big = screens[0]
        big.uiComponents = (0..<40).map { i in
            Component(id: "c\(i)", componentType: ["list", "grid", "hero", "horizontal_list"][i % 4], cellStyles: ["GRID_1"],
                      header: SectionDecoration(visible: i % 3 == 0, style: "HEADER_1"), itemLimit: i % 7,
                      data: ComponentData(source: "feed-\(i)", type: "APPLICASTER_COLLECTION"), styles: ["cell_body_component_type": "list"])
        }
        big.name = "Big é \"quoted\" \\ ☃"
        screens.append(big)
        return screens
    }

    /// The stored text of a screen: its stored form with `home`, as PostgreSQL gives it back.
    static func storedText(_ screen: Screen) -> JSONValue {
        var o = (try? JSONValue.parse(screen.storedForm()))?.objectValue ?? [:]
        o["home"] = .bool(screen.home)
        return .object(o)
    }

    /// `value` as text with its members in a random order and random white space between tokens
    /// (PostgreSQL's jsonb writes `", "` and `": "`, in an order of its own).
    static func write(_ value: JSONValue, _ g: inout JSONParserFuzzTests.Seeded, _ out: inout String) {
        func space() { if Bool.random(using: &g) { out += [" ", "\n ", "  ", "\t"].randomElement(using: &g)! } }
        switch value {
        case .object(let o):
            out += "{"
            for (i, key) in o.keys.shuffled(using: &g).enumerated() {
                if i > 0 { out += "," }
                space()
                out += JSONValue.string(key).serializedString()
                space()
                out += ":"
                space()
                write(o[key]!, &g, &out)
                space()
            }
            out += "}"
        case .array(let a):
            out += "["
            for (i, item) in a.enumerated() {
                if i > 0 { out += "," }
                space()
                write(item, &g, &out)
            }
            space()
            out += "]"
        default: out += value.serializedString()
        }
    }

    /// The property: the fast path gives nothing or exactly what the full reader gives.
    /// With `anyType`, the full reader is given the text's own type as known, as a write reading
    /// the current screen does.
    static func check(_ text: [UInt8], _ options: Screen.ReadOptions, anyType: Bool = false, fastExpected: Bool = false) -> (fast: Bool, full: Bool) {
        let fast = StoredScreenDecoder.decode(text, options: options, anyType: anyType)
        let problems = Problems()
        var options = options
        if anyType, let type = (try? JSONValue.parse(text))?["type"]?.stringValue { options.pluginScreenTypes.insert(type) }
        let full = (try? JSONValue.parse(text)).flatMap { Screen.read($0, options: options, problems: problems) }
        let fullRead = full != nil && problems.isEmpty
        // A nav item without an id gets a random one, from either path: such a text reads
        // differently every time, and only its being read is compared.
        let deterministic = full == (try? JSONValue.parse(text)).flatMap { Screen.read($0, options: options, problems: Problems()) }
        if let fast, !deterministic {
            #expect(fullRead && fast.name == full?.name)
        } else if let fast {
            #expect(fullRead && fast == full, "the fast path vouched for a screen the full reader reads otherwise: \(String(decoding: text, as: UTF8.self)) PROBLEMS \(problems.errors) FAST \(fast) FULL \(String(describing: full))")
        } else if fastExpected {
            Issue.record("the fast path did not read a valid stored screen: \(String(decoding: text, as: UTF8.self)) \(problems.errors)")
        }
        return (fast != nil, fullRead)
    }

    @Test func validScreensInAnyOrderAndSpacingDecodeAsTheReaderReadsThem() throws {
        var g = JSONParserFuzzTests.Seeded(state: 2611)
        var decoded = 0
        let screens = try Self.validScreens()
        #expect(screens.count >= 6)
        for screen in screens {
            let stored = Self.storedText(screen)
            let options = Self.optionSets[0]
            // As written, and ten times in another order and spacing.
            #expect(Self.check(stored.serialized(), options, fastExpected: true).fast)
            for _ in 0..<10 {
                var text = ""
                Self.write(stored, &g, &text)
                if Self.check(Array(text.utf8), options, fastExpected: true).fast { decoded += 1 }
            }
            // With the bookkeeping the API adds.
            var withBookkeeping = stored.objectValue ?? [:]
            withBookkeeping["revision"] = 3
            withBookkeeping["created_at"] = "2026-11-27T07:00:00Z"
            #expect(Self.check(JSONValue.object(withBookkeeping).serialized(), options, fastExpected: true).fast)
        }
        #expect(decoded == screens.count * 10)
    }

    /// Values a damaged text may hold in place of one of its own.
    static let damage: [JSONValue] = [
        nil, "", " ", "x", "FAMILY_1", "lower", "5d1f1c1e-1111-4a4a-8b8b-00000000000A", "not-a-uuid", 0, -1, 7, 1.5, 10_001, true, false,
        [:], [], ["k": 1], [nil], ["x"], ["FAMILY_1"], .string(String(repeating: "a", count: 10_001)),
        .string(String(repeating: "é", count: 150)), "\u{0}", ["visible": true], ["source": "s", "type": "T"],
        [["id": "n", "component_type": "list"]], [["id": "n", "category": "nav_bar", "navigation_type": "navigation_bar"]],
        ["preload_plugins": [["identifier": "unknown_hook", "type": "t"]]], ["family": "F"], ["item_limit": "12"], ["item_limit": 10_001],
    ]

    /// Every place in `value` (pointer-like paths), members and elements.
    static func places(_ value: JSONValue, _ path: [String] = [], _ out: inout [[String]]) {
        out.append(path)
        switch value {
        case .object(let o): for (k, v) in o { places(v, path + [k], &out) }
        case .array(let a): for (i, v) in a.enumerated() { places(v, path + ["#\(i)"], &out) }
        default: break
        }
    }

    /// `value` with the value at `path` replaced (`nil` removes a member), or a member added.
    static func changing(_ value: JSONValue, at path: ArraySlice<String>, to new: JSONValue?, adding: String? = nil) -> JSONValue {
        guard let step = path.first else {
            if let adding, case .object(var o) = value {
                o[adding] = new ?? .null
                return .object(o)
            }
            return new ?? .null
        }
        switch value {
        case .object(var o):
            if path.count == 1, new == nil, adding == nil {
                o.removeValue(forKey: step)
            } else {
                o[step] = changing(o[step] ?? .null, at: path.dropFirst(), to: new, adding: adding)
            }
            return .object(o)
        case .array(var a):
            let i = Int(step.dropFirst())!
            a[i] = changing(a[i], at: path.dropFirst(), to: new, adding: adding)
            return .array(a)
        default: return value
        }
    }

    @Test func damagedScreensAreDecodedAsTheReaderReadsThemOrLeftToIt() throws {
        var g = JSONParserFuzzTests.Seeded(state: 26_2611)
        var vouched = 0, refusedByReader = 0, cases = 0
        let screens = try Self.validScreens()
        for round in 0..<1_200 {
            let stored = Self.storedText(screens[round % screens.count])
            var paths: [[String]] = []
            Self.places(stored, [], &paths)
            let path = paths.randomElement(using: &g)!
            let damaged: JSONValue
            switch Int.random(in: 0..<10, using: &g) {
            case 0: damaged = Self.changing(stored, at: path[...], to: nil)  // removed
            case 1: damaged = Self.changing(stored, at: path[...], to: 1, adding: ["bogus", "extra", "id", "position", "family"].randomElement(using: &g)!)
            case 2:
                // Two components with one id.
                var components = stored["ui_components"]?.arrayValue ?? []
                guard components.count >= 2, var second = components[1].objectValue else { continue }
                second["id"] = components[0]["id"]
                components[1] = .object(second)
                damaged = Self.changing(stored, at: ["ui_components"], to: .array(components))
            default: damaged = Self.changing(stored, at: path[...], to: Self.damage.randomElement(using: &g)!)
            }
            var text = ""
            Self.write(damaged, &g, &text)
            var bytes = Array(text.utf8)
            // Now and then a damaged byte too: the text may no longer be JSON at all.
            if round % 7 == 0, !bytes.isEmpty {
                let at = Int.random(in: 0..<bytes.count, using: &g)
                switch Int.random(in: 0..<3, using: &g) {
                case 0: bytes.remove(at: at)
                case 1: bytes.insert(Self.fuzzBytes.randomElement(using: &g)!, at: at)
                default: bytes[at] = Self.fuzzBytes.randomElement(using: &g)!
                }
            }
            for (n, options) in Self.optionSets.enumerated() {
                let (fast, full) = Self.check(bytes, options, anyType: n == 1)
                cases += 1
                if fast { vouched += 1 }
                if !full { refusedByReader += 1 }
            }
        }
        // Both sides well represented: damage the reader refuses, and damage it reads (free-form
        // values changed), which the fast path reads too.
        #expect(cases >= 3_000 && vouched > 400 && refusedByReader > 400, "cases \(cases), vouched \(vouched), refused \(refusedByReader)")
    }

    static let fuzzBytes: [UInt8] = Array(#"{}[],:"\ -0123456789eE.tfn"#.utf8) + [0x00, 0x0A, 0xC3, 0xFF]

    /// A publish reads stored screens through the fast path: the screens it returns are the
    /// reader's, and a text the fast path leaves is read the full way, problems and all.
    @Test func storedScreensReadThroughTheFastPathOrTheReader() async throws {
        let screens = try Self.validScreens()
        let options = Self.optionSets[0]
        let texts = screens.map { Self.storedText($0).serialized() }
        let read = await StoredScreens.read(texts, options: options)
        for (i, result) in read.enumerated() {
            #expect((try? result.get()) == screens[i], "screen \(i)")
        }
        var broken = Self.storedText(screens[0]).objectValue ?? [:]
        broken["name"] = 5
        let refused = await StoredScreens.read([JSONValue.object(broken).serialized()], options: options)
        guard case .failure(let failure) = refused[0] else {
            Issue.record("a stored screen with a number for a name was read")
            return
        }
        #expect(failure.errors.map(\.pointer) == ["/name"])
    }
}
