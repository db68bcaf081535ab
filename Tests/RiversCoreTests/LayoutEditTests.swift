import Foundation
import Testing

@testable import RiversCore

/// Issue 26: a merge patch of a layout is applied to the typed layout (its kept components are
/// not made JSON again). Checked against what reading the patch merged onto the layout's JSON
/// gave (the PATCH of before), over many patches, valid and not: the same layout, or the same
/// problems at the same pointers.
@Suite("A layout's merge patches, typed")
struct LayoutEditTests {
    static let catalog = ComponentCatalog.builtIn

    static func bases() throws -> [LayoutTemplate] {
        let bodies: [JSONValue] = [
            [
                "id": "home.v1", "name": "Home", "family": "FAMILY_1",
                "ui_components": [
                    ["id": "c1", "component_type": "list", "cell_styles": ["LIST_1"], "data": ["source": "feed-1", "type": "T"], "extra": ["k": 1]],
                    ["id": "g", "component_type": "group", "ui_components": [["id": "g1", "component_type": "grid", "cell_styles": ["GRID_1"]]]],
                ],
            ],
            ["id": "empty", "name": "Empty", "family": "FAMILY_2"],
        ]
        return try bodies.map { body in
            let problems = Problems()
            return try #require(LayoutTemplate.read(body, catalog: catalog, problems: problems), "\(problems.errors)")
        }
    }

    static let candidates: [String: [JSONValue]] = [
        "id": [nil, "other", 5],
        "name": ["Renamed", nil, "", 7, ["x": 1]],
        "family": ["FAMILY_3", nil, "", ["a": nil]],
        "ui_components": [
            [["id": "n1", "component_type": "hero"]],
            [["id": "n2", "component_type": "nope"], ["id": "n3", "component_type": "grid", "cell_styles": "GRID_1"]],
            [["component_type": "group", "ui_components": [["id": "in", "component_type": "list"]]]],
            [], nil, "x", ["a": 1],
        ],
        "revision": [3],
        "updated_at": ["x"],
        "bogus": [1, nil],
    ]

    static func readThroughTree(_ patch: JSONValue, base: LayoutTemplate) -> (LayoutTemplate?, [String]) {
        if let id = patch["id"], !id.isNull, id.stringValue != base.id {
            return (nil, ["/id cannot be changed (this is \(base.id))"])
        }
        var merged = base.json.mergePatched(with: patch).objectValue ?? [:]
        merged["id"] = .string(base.id)
        for key in ["revision", "created_at", "updated_at"] { merged[key] = nil }
        let problems = Problems()
        let layout = LayoutTemplate.read(.object(merged), catalog: catalog, problems: problems)
        return (layout, problems.errors.map { "\($0.pointer) \($0.message)" }.sorted())
    }

    static func readTyped(_ patch: JSONValue, base: LayoutTemplate, catalog: ComponentCatalog = catalog) -> (LayoutTemplate?, [String]) {
        let problems = Problems()
        let layout = LayoutTemplate.read(mergePatch: patch, onto: base, catalog: catalog, problems: problems)
        return (layout, problems.errors.map { "\($0.pointer) \($0.message)" }.sorted())
    }

    /// Ids a list generates for components sent without one are random: compared as one.
    static func comparable(_ layout: LayoutTemplate?) -> LayoutTemplate? {
        guard var layout else { return nil }
        for i in layout.uiComponents.indices where !["c1", "g", "n1", "n2", "n3"].contains(layout.uiComponents[i].id) {
            layout.uiComponents[i].id = "generated"
        }
        return layout
    }

    @Test func aMergePatchReadsAsTheMergedBody() throws {
        let notAnObject = Self.readTyped(3, base: try Self.bases()[0])
        #expect(notAnObject.0 == nil && notAnObject.1 == [" a merge patch must be a JSON object, not number"], "\(notAnObject.1)")
        let (accepted, refused) = checkMergePatches(
            bases: try Self.bases(), candidates: Self.candidates, seed: 28, count: 200, most: 4, describe: \.id,
            typed: { Self.readTyped($0, base: $1) }, tree: Self.readThroughTree, comparable: Self.comparable)
        #expect(accepted > 60 && refused > 60, "accepted \(accepted), refused \(refused)")
    }

    /// Kept components are checked against the catalog as it is now.
    @Test func keptComponentsAreCheckedAgainstTheCatalog() throws {
        let base = try Self.bases()[0]
        let catalog = ComponentCatalog(ComponentType.builtIn.filter { $0.id != "grid" })
        let renamed = Self.readTyped(["name": "N"], base: base, catalog: catalog)
        #expect(renamed.0 == nil && renamed.1.map { $0.split(separator: " ").first.map(String.init) ?? "" } == ["/ui_components/1/ui_components/0/component_type"], "\(renamed.1)")
        let kept = try #require(Self.readTyped(["name": "Start"], base: base).0)
        #expect(kept.name == "Start" && kept.uiComponents == base.uiComponents && kept.family == base.family)
        #expect(Self.readTyped([:], base: base).0 == base)
    }
}
