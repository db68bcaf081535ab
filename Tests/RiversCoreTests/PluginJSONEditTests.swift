import Testing

@testable import RiversCore

/// A manifest's normalising edits are made in one pass (`PluginJSON.setting(_:in:)`); made one by
/// one, each copied the arrays on its path again. Both must give the same document.
@Suite("Plugin JSON edits in one pass")
struct PluginJSONEditTests {
    typealias Token = PluginJSON.Token

    /// A small deterministic generator (no Foundation randomness: the same cases every run).
    struct Steps {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    static let document: JSONValue = [
        "general": ["fields": [
            ["key": "a", "mandatory": "true", "options": [1, 2, 3]],
            ["group": true, "fields": [["key": "b", "initial_value": 4], ["key": "c"]]],
            ["key": "d"],
        ]],
        "styles": ["fields": [["key": "e"]]],
    ]

    static let paths: [[Token]] = [
        [], [.key("general")], [.key("general"), .key("fields")], [.key("general"), .key("fields"), .index(0)],
        [.key("general"), .key("fields"), .index(0), .key("mandatory")], [.key("general"), .key("fields"), .index(1), .key("fields"), .index(0)],
        [.key("general"), .key("fields"), .index(1), .key("fields"), .index(1), .key("key")], [.key("general"), .key("fields"), .index(7)],
        [.key("styles"), .key("fields"), .index(0), .key("key")], [.key("nope"), .key("x")], [.key("general"), .key("fields"), .index(2)],
    ]

    @Test("the same document as the edits made one by one, whatever their order and nesting")
    func oneByOneAndAtOnceAgree() {
        var steps = Steps(state: 26)
        for _ in 0..<2_000 {
            var edits: [(path: [Token], value: JSONValue)] = []
            for n in 0..<(1 + steps.next(6)) {
                edits.append((Self.paths[steps.next(Self.paths.count)], .number(Double(n))))
            }
            var oneByOne = Self.document
            for edit in edits { oneByOne = PluginJSON.setting(edit.value, at: edit.path[...], in: oneByOne) }
            #expect(PluginJSON.setting(edits, in: Self.document) == oneByOne, "\(edits.map(\.path))")
        }
    }
}

/// The publish check finds the screens on a cycle of parents in one pass; it asked each screen's
/// whole chain before (quadratic in a long chain). Both must name the same screens.
@Suite("Cycles of parents in one pass")
struct ParentCycleTests {
    @Test("the screens on a cycle are those whose own chain comes back to them, over many generated apps")
    func onePassAgreesWithEachChain() {
        var steps = PluginJSONEditTests.Steps(state: 7)
        for _ in 0..<500 {
            let count = 1 + steps.next(30)
            let ids = (0..<count).map { "s\($0)" }
            var parents: [String: String?] = [:]
            for id in ids {
                let pick = steps.next(count + 3)
                // No parent, a missing one, or another screen of the app (itself included).
                parents[id] = pick == count ? .some(nil) : pick == count + 1 ? .some("gone") : .some(ids[pick % count])
            }
            let eachChain = Set(ids.filter { PublishCheck.cycle(from: $0, parents: parents) != nil })
            #expect(PublishCheck.screensOnCycles(parents) == eachChain, "\(parents)")
        }
        // A chain of 500 has none; a ring of 500 is all of it.
        let chain = Dictionary(uniqueKeysWithValues: (0..<500).map { ("c\($0)", $0 == 0 ? String?.none : "c\($0 - 1)") })
        #expect(PublishCheck.screensOnCycles(chain).isEmpty)
        let ring = Dictionary(uniqueKeysWithValues: (0..<500).map { ("r\($0)", String?.some("r\(($0 + 1) % 500)")) })
        #expect(PublishCheck.screensOnCycles(ring).count == 500)
    }
}
