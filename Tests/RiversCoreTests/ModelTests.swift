import RiversCore
import Testing

@Suite("Domain model (pure)")
struct ModelTests {
    @Test("cell sizes follow the family: 300 for one column, 145 for two")
    func workedExample() throws {
        let problems = Problems()
        let family = try #require(Family.read([
            "id": "FAMILY_1", "reference_size": ["width": 320, "height": 568],
            "insets": ["left": 10, "right": 10], "interitem_spacing": 10,
            "cell_styles": [
                ["id": "ONE", "columns": 1, "height": 100],
                ["id": "TWO", "columns": 2, "aspect_ratio": 2],
                ["id": "FIXED", "width": 120, "height": 60],
            ],
        ], problems: problems), "\(problems.errors)")
        #expect(family.width(of: family.cellStyles[0]) == 300)
        #expect(family.width(of: family.cellStyles[1]) == 145)
        #expect(family.width(of: family.cellStyles[2]) == 120)
        #expect(family.name == "FAMILY_1", "the name defaults to the id")
    }

    @Test("JSON text parser: values, escapes, errors with line and column")
    func parser() throws {
        let v = try JSONValue.parse(Array(#"{"a": [1, -2.5e1, true, false, null], "b": "x\"\u00e9\ud83d\ude00\n"}"#.utf8))
        #expect(v["a"] == [1, -25, true, false, nil])
        #expect(v["b"] == "x\"é😀\n")
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Array("{\"a\": 1,}".utf8)) }
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Array("[1] x".utf8)) }
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Array(#"{"a":1,"a":2}"#.utf8)) }
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Array("[\"a\tb\"]".utf8)) }
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Array("[\"unterminated]".utf8)) }
        #expect(try JSONValue.parse(Array(#"["plain", "", "esc\\aped", "ünï"]"#.utf8)) == ["plain", "", "esc\\aped", "ünï"])
        do {
            _ = try JSONValue.parse(Array("{\n  \"a\": tru\n}".utf8))
            Issue.record("parsed invalid JSON")
        } catch {
            #expect(error.description.contains("line 2"))
        }
    }

    /// Issue 26 (memory): a long array is sized once from a scan of its text, not grown by
    /// doubling; the scan counts only its own commas (not those in strings or nested values).
    @Test("a long array is parsed into a buffer of its size, and the same values")
    func longArrays() throws {
        let tricky: [JSONValue] = ["a, b", "[{\"", [1, 2, [3]], ["k,": ["]": 1]], "\\", nil]
        let elements: [JSONValue] = (0..<100_000).map { i in i % 1000 == 7 ? tricky[(i / 1000) % tricky.count] : .number(Double(i % 10)) }
        let text = JSONValue.object(["blob": .array(elements)]).serialized()
        let parsed = try JSONValue.parse(text)
        #expect(parsed == .object(["blob": .array(elements)]))
        let array = try #require(parsed["blob"]?.arrayValue)
        // Grown by doubling, 100,000 elements would sit in 131,072 slots.
        #expect(array.capacity < 100_000 + 100_000 / 20, "capacity \(array.capacity)")
        // Short arrays and malformed long ones are unchanged: values, or an error.
        #expect(try JSONValue.parse(Array("[1, [2, 3], \"]\"]".utf8)) == [1, [2, 3], "]"])
        let unterminated = Array("[".utf8) + Array(repeating: Array("0,".utf8), count: 2000).joined() + Array("\"open".utf8)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(unterminated) }
    }

    @Test("serialization is deterministic with sorted keys")
    func serialization() {
        let v: JSONValue = ["b": 1, "a": ["z": 2.5, "y": "q\"\n"], "c": [true, nil]]
        #expect(v.serializedString() == #"{"a":{"y":"q\"\n","z":2.5},"b":1,"c":[true,null]}"#)
    }

    @Test("whole numbers are written without a fraction or an exponent below 1e21, as JavaScript writes them")
    func wholeNumbersStayWhole() throws {
        let cases: [(String, String)] = [
            ("0", "0"), ("-0", "0"), ("42", "42"), ("999999999999999", "999999999999999"), ("1000000000000000", "1000000000000000"),
            ("1234567890123456", "1234567890123456"), ("-1234567890123456", "-1234567890123456"), ("9007199254740993", "9007199254740992"),
            ("12345678901234567891", "12345678901234567000"), ("-9223372036854775809", "-9223372036854776000"),
            ("1e20", "100000000000000000000"), ("1e21", "1e+21"), ("1.5e300", "1.5e+300"), ("0.5", "0.5"), ("-2.25", "-2.25"),
            ("1e-7", "1e-07"), ("123456789012345.5", "123456789012345.5"),
        ]
        for (text, written) in cases {
            let value = try JSONValue.parse(Array(text.utf8))
            #expect(String(decoding: value.serialized(), as: UTF8.self) == written, "\(text)")
            // What is written reads back as the same number.
            #expect(try JSONValue.parse(value.serialized()) == value, "\(text)")
        }
    }

    @Test("JSON merge patch (RFC 7386)")
    func mergePatch() {
        let target: JSONValue = ["a": "b", "c": ["d": "e", "f": "g"]]
        #expect(target.mergePatched(with: ["a": "z", "c": ["f": nil]]) == ["a": "z", "c": ["d": "e"]])
        #expect(target.mergePatched(with: ["a": ["b": "c"]])["a"] == ["b": "c"])
        #expect(JSONValue.array([1]).mergePatched(with: ["a": 1]) == ["a": 1])
    }

    @Test("screen_type names: lower snake case with the app's counter")
    func screenTypeNames() {
        #expect(ScreenTypeName.make(name: "Live TV!", number: 3) == "live_tv_3")
        #expect(ScreenTypeName.make(name: "  ", number: 1) == "screen_1")
        #expect(ScreenTypeName.make(name: "Émissions", number: 2) == "missions_2")
    }

    @Test("references: cell styles, parents, cycles, targets")
    func references() throws {
        let family = Family(id: "F", name: "F", referenceSize: Size(width: 320, height: 568), cellStyles: [
            CellStyle(id: "A", width: .columns(1), height: .points(10)),
        ])
        let components = [Component(componentType: "list", cellStyles: ["A", "B"])]
        #expect(References.checkCellStyles(components, family: family, familyId: "F").map(\.pointer) == ["/ui_components/0/cell_styles/1"])
        #expect(References.checkCellStyles(components, family: nil, familyId: "X").map(\.pointer) == ["/family"])

        let a = UUIDText.random(), b = UUIDText.random(), c = UUIDText.random()
        var screen = Screen(id: a, name: "A", parent: b, family: "F")
        #expect(References.checkScreenLinks(screen, parents: [a: nil, b: .some(c), c: nil]).isEmpty)
        #expect(References.checkScreenLinks(screen, parents: [a: nil, b: .some(a)]).map(\.pointer) == ["/parent"])
        screen.parent = UUIDText.random()
        #expect(References.checkScreenLinks(screen, parents: [a: nil]).map(\.message).first?.hasPrefix("no screen") == true)
    }

    /// Issue 26: a write checks the typed screen, not a JSON copy of it; both checks give the same
    /// problems at the same pointers (the JSON one stays for a body that does not read).
    @Test("the typed link check says what the JSON one says, everywhere a screen links")
    func typedLinksAsJSON() {
        let a = UUIDText.random(), b = UUIDText.random(), known = UUIDText.random()
        let missing = (0..<8).map { _ in UUIDText.random() }
        var child = Component(componentType: "list", data: ComponentData(source: "s", type: "t", target: missing[0]))
        child.uiComponents = [Component(componentType: "list", data: ComponentData(source: "s", type: "t", target: missing[1]))]
        var screen = Screen(id: a, name: "A", parent: b, family: "F", uiComponents: [
            Component(componentType: "list", data: ComponentData(source: "s", type: "t", target: known)),
            Component(componentType: "group", uiComponents: [child]),
        ])
        screen.navigations = [Navigation(id: "n", category: .menu, navigationType: "m", navItems: [
            NavItem(id: "i1", title: "One", type: "button", data: NavItemData(target: missing[2]), navItems: [
                NavItem(id: "i2", title: "Two", type: "button", data: NavItemData(target: missing[3])),
                NavItem(id: "i3", title: "Three", type: "button", data: NavItemData(target: known)),
            ]),
        ])]
        screen.hooks = ScreenHooks(
            preloadPlugins: [Hook(identifier: "h", type: "general", screenId: missing[4]), Hook(identifier: "k", type: "login")],
            postloadPlugins: [Hook(identifier: "p", type: "general", screenId: missing[5])])
        for parents: [String: String?] in [[known: nil], [known: nil, b: .some(a)], [known: nil, b: nil], [:]] {
            let typed = References.checkScreenLinks(screen, parents: parents)
            #expect(typed == References.checkScreenLinks(json: screen.json, id: a, parents: parents))
            #expect(typed.count >= 6)
        }
        #expect(References.checkScreenLinks(screen, parents: [known: nil, b: nil]).map(\.pointer) == [
            "/ui_components/1/ui_components/0/data/target", "/ui_components/1/ui_components/0/ui_components/0/data/target",
            "/navigations/0/nav_items/0/data/target", "/navigations/0/nav_items/0/nav_items/0/data/target",
            "/hooks/preload_plugins/0/screen_id", "/hooks/postload_plugins/0/screen_id",
        ])
    }

    @Test("UUID text: normalised to lower case, rejected when malformed")
    func uuids() {
        #expect(UUIDText.normalize("65878854-9119-4E26-83F1-8F02C9769CA2") == "65878854-9119-4e26-83f1-8f02c9769ca2")
        #expect(UUIDText.normalize("6587885491194e2683f18f02c9769ca2") == nil)
        #expect(UUIDText.normalize(UUIDText.random()) != nil)
    }
}
