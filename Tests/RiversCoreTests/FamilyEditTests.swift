import Foundation
import Testing

@testable import RiversCore

/// Issue 26: a merge patch of a family is applied to the typed family (what it leaves out, the
/// cell styles above all, is not made JSON again). Checked against what reading the patch merged
/// onto the family's JSON gave (the PATCH of before), over many patches, valid and not: the same
/// family, or the same problems at the same pointers.
@Suite("A family's merge patches, typed")
struct FamilyEditTests {
    static func family(_ body: JSONValue) throws -> Family {
        let problems = Problems()
        return try #require(Family.read(body, problems: problems), "\(problems.errors)")
    }

    /// Families with every member set and unset: fixed and scalable lengths, columns and widths,
    /// heights, aspect ratios and `fit` with content.
    static func bases() throws -> [Family] {
        let full: JSONValue = [
            "id": "FAMILY_1", "name": "Phone", "reference_size": ["width": 320, "height": 568],
            "insets": ["top": 10, "left": 10, "bottom": ["fixed": 4], "right": 10], "interitem_spacing": 10, "line_spacing": ["fixed": 6],
            "cell_styles": [
                ["id": "LIST_1", "columns": 1, "height": 80],
                ["id": "GRID_1", "columns": 2, "aspect_ratio": 1.5],
                ["id": "WIDE_1", "width": ["fixed": 300], "height": ["fixed": 40]],
                ["id": "FIT_1", "columns": 3, "height": "fit", "content": ["kind": "stack", "axis": "vertical", "children": [["kind": "text", "role": "title", "line_height": 17, "max_lines": 1]]]],
            ],
        ]
        let plain: JSONValue = ["id": "FAMILY_2", "reference_size": ["width": 1920, "height": 1080]]
        return [try family(full), try family(plain)]
    }

    /// Values a patch may give each member: valid ones, wrong types, nulls, merges that remove,
    /// and changes that make kept cell styles too wide or too narrow.
    static let candidates: [String: [JSONValue]] = [
        "id": [nil, "FAMILY_9", 5],
        "name": ["Renamed", nil, 5, ""],
        "reference_size": [["width": 200], ["height": nil], ["width": 0], ["width": 20], nil, "x", ["depth": 1]],
        "insets": [["left": 100], ["left": nil, "right": nil], ["left": 150, "right": 150], ["top": ["fixed": 2]], ["top": ["fixed": nil]], nil, 3, ["middle": 1]],
        "interitem_spacing": [20, ["fixed": 8], 400, nil, "wide", ["fixed": nil], ["other": 1]],
        "line_spacing": [0, ["fixed": 12], nil, -1, ["fixed": 3, "x": 1]],
        "cell_styles": [
            [["id": "ONE_1", "columns": 4, "height": 50]],
            [["id": "LIST_1", "columns": 1, "height": 80], ["id": "LIST_1", "width": 20, "height": 10]],
            [["id": "BAD", "columns": 0]],
            [], nil, ["id": "X"],
        ],
        "revision": [9, "x"],
        "created_at": ["2026-01-01T00:00:00Z"],
        "bogus": [1, nil],
    ]

    /// Reading the patch merged onto the family's JSON, as a PATCH did before (the id kept, the
    /// read-only members dropped).
    static func readThroughTree(_ patch: JSONValue, base: Family) -> (Family?, [String]) {
        if let id = patch["id"], !id.isNull, id.stringValue != base.id {
            return (nil, ["/id cannot be changed (this is \(base.id))"])
        }
        var merged = base.json().mergePatched(with: patch).objectValue ?? [:]
        merged["id"] = .string(base.id)
        for key in ["revision", "created_at", "updated_at"] { merged[key] = nil }
        let problems = Problems()
        let family = Family.read(.object(merged), problems: problems)
        return (family, problems.errors.map { "\($0.pointer) \($0.message)" }.sorted())
    }

    static func readTyped(_ patch: JSONValue, base: Family) -> (Family?, [String]) {
        let problems = Problems()
        let family = Family.read(mergePatch: patch, onto: base, problems: problems)
        return (family, problems.errors.map { "\($0.pointer) \($0.message)" }.sorted())
    }

    @Test func aMergePatchReadsAsTheMergedBody() throws {
        let notAnObject = Self.readTyped("not an object", base: try Self.bases()[0])
        #expect(notAnObject.0 == nil && notAnObject.1 == [" a merge patch must be a JSON object, not string"], "\(notAnObject.1)")
        let (accepted, refused) = checkMergePatches(
            bases: try Self.bases(), candidates: Self.candidates, seed: 27, count: 300, most: 4, describe: \.id,
            typed: Self.readTyped, tree: Self.readThroughTree)
        #expect(accepted > 100 && refused > 100, "accepted \(accepted), refused \(refused)")
    }

    /// The kept cell styles are checked against the patched insets and spacing, at their pointers.
    @Test func keptCellStylesAreCheckedAgainstPatchedMembers() throws {
        let base = try Self.bases()[0]
        let narrow = Self.readTyped(["insets": ["left": 20, "right": 20]], base: base)
        #expect(narrow.0 == nil && narrow.1 == ["/cell_styles/2/width 300 is wider than the 280 points between the insets"], "\(narrow.1)")
        let spaced = Self.readTyped(["interitem_spacing": 200], base: base)
        #expect(spaced.1 == ["/cell_styles/3/columns 3 columns with spacing 200 do not fit in 300 points"], "\(spaced.1)")
        let renamed = try #require(Self.readTyped(["name": "Tablet", "insets": ["top": 0]], base: base).0)
        #expect(renamed.name == "Tablet" && renamed.insets.top == .zero && renamed.insets.bottom == base.insets.bottom && renamed.cellStyles == base.cellStyles)
        #expect(Self.readTyped([:], base: base).0 == base)
    }
}
