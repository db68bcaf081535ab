import Foundation
import RiversCore
import RiversServices
import RiversStore
import Testing

/// The family and layout use cases over in-memory storage: no PostgreSQL (the fast tier).
@Suite("Family and layout use cases, in memory")
struct FamilyServiceTests {
    let appId = "66666666-6666-4666-8666-666666666666"

    func make() -> (FamilyService, LayoutService, ScreenService, InMemoryContent) {
        let storage = InMemoryContent()
        storage.addApp(id: appId)
        return (FamilyService(storage: storage), LayoutService(storage: storage), ScreenService(storage: storage), storage)
    }

    var twoStyles: JSONValue {
        family.mergePatched(with: ["cell_styles": [["id": "LIST_1", "columns": 1, "height": 80], ["id": "GRID_1", "columns": 2, "aspect_ratio": 1.5]]])
    }

    @Test func aFamilyIsCreatedOnceChangedAndNotChangedForNothing() async throws {
        let (families, _, _, storage) = make()
        let made = try await families.create(appId: appId, body: twoStyles)
        #expect(made.revision == 1 && made.body["id"] == "FAMILY_1")
        do {
            _ = try await families.create(appId: appId, body: twoStyles)
            Issue.record("a second FAMILY_1 was made")
        } catch StoreError.conflict {}
        let problems = try await invalid { try await families.create(appId: appId, body: ["id": "F2", "name": 5]) }
        #expect(problems.contains("/name") && problems.contains("/reference_size"), "\(problems)")

        let patched = try await families.update(appId: appId, id: "FAMILY_1", precondition: .oneOf([1]), edit: .mergePatch(["name": "Tablets"]))
        #expect(patched.body["name"] == "Tablets" && patched.revision == 2)
        let same = try await families.update(appId: appId, id: "FAMILY_1", precondition: .none, edit: .mergePatch(["name": "Tablets"]))
        #expect(same.revision == 2, "nothing changed, nothing written")
        do {
            _ = try await families.update(appId: appId, id: "FAMILY_1", precondition: .oneOf([1]), edit: .mergePatch(["name": "Late"]))
            Issue.record("a stale write went through")
        } catch StoreError.preconditionFailed(let current) {
            #expect(current == 2)
        }
        #expect(try await invalid { try await families.update(appId: appId, id: "FAMILY_1", precondition: .none, edit: .replace(twoStyles.mergePatched(with: ["id": "OTHER"]))) } == ["/id"])
        do {
            _ = try await families.update(appId: appId, id: "NOPE", precondition: .none, edit: .mergePatch(["name": "X"]))
            Issue.record("an unknown family was found")
        } catch StoreError.notFound {}
        #expect(storage.families(appId: appId).map(\.revision) == [2])
    }

    @Test func stylesInUseStayAndAFamilyInUseStays() async throws {
        let (families, layouts, screens, storage) = make()
        _ = try await families.create(appId: appId, body: twoStyles)
        // A screen uses LIST_1 in a group's child; a layout uses GRID_1.
        let group: JSONValue = ["component_type": "group", "cell_styles": [], "ui_components": [list("feed-1")]]
        let (_, screenId) = try await screens.create(appId: appId, body: screen("Home", [group]))
        _ = try await layouts.create(appId: appId, body: [
            "id": "grid", "name": "Grid", "family": "FAMILY_1",
            "ui_components": [["component_type": "grid", "cell_styles": ["GRID_1"], "data": ["source": "feed-2"]]],
        ])
        do {
            _ = try await families.update(appId: appId, id: "FAMILY_1", precondition: .none, edit: .mergePatch(["cell_styles": []]))
            Issue.record("styles in use were dropped")
        } catch StoreError.conflict(_, let users) {
            #expect(users.map(\.id) == [screenId, "grid"] && users.map(\.cellStyles) == [["LIST_1"], ["GRID_1"]], "\(users)")
        }
        do {
            try await families.delete(appId: appId, id: "FAMILY_1", precondition: .none)
            Issue.record("a family in use was removed")
        } catch StoreError.conflict(_, let users) {
            #expect(users.map(\.kind) == [.screen, .layout])
        }
        // Once nothing uses it, it goes.
        try await screens.delete(appId: appId, id: screenId, precondition: .none)
        try await layouts.delete(appId: appId, id: "grid", precondition: .none)
        try await families.delete(appId: appId, id: "FAMILY_1", precondition: .oneOf([1]))
        #expect(storage.families(appId: appId).isEmpty)
    }

    @Test func aLayoutsComponentsAreCheckedAgainstItsFamily() async throws {
        let (families, layouts, _, _) = make()
        _ = try await families.create(appId: appId, body: family)
        let problems = try await invalid {
            try await layouts.create(appId: appId, body: ["id": "L", "name": "L", "family": "FAMILY_1", "ui_components": [list("feed-1", styles: ["NOPE"])]])
        }
        #expect(problems == ["/ui_components/0/cell_styles/0"], "\(problems)")
        let noFamily = try await invalid { try await layouts.create(appId: appId, body: ["id": "L", "name": "L", "family": "GONE"]) }
        #expect(noFamily == ["/family"], "\(noFamily)")
        let made = try await layouts.create(appId: appId, body: ["id": "L", "name": "L", "family": "FAMILY_1", "ui_components": [list("feed-1")]])
        #expect(made.revision == 1)
        let renamed = try await layouts.update(appId: appId, id: "L", precondition: .oneOf([1]), edit: .mergePatch(["name": "Lists"]))
        #expect(renamed.body["name"] == "Lists" && renamed.revision == 2)
        do {
            _ = try await layouts.create(appId: appId, body: ["id": "L", "name": "Again", "family": "FAMILY_1"])
            Issue.record("a second layout L was made")
        } catch StoreError.conflict {}
    }

    @Test func layoutsAreCappedInBytesOneByOneAndTogether() async throws {
        let storage = try await contentWithFamily(appId: appId)
        let layouts = LayoutService(storage: storage)
        func layout(_ id: String, padding bytes: Int) -> JSONValue {
            let strings = JSONValue.array((0..<(bytes / 5_000)).map { _ in .string(String(repeating: "p", count: 5_000)) })
            return ["id": .string(id), "name": .string(id), "family": "FAMILY_1", "ui_components": [["component_type": "list", "cell_styles": ["LIST_1"], "data": ["source": "feed-1"], "extra": ["padding": strings]]]]
        }
        // One layout past its cap, created or grown by a change: refused, nothing kept.
        #expect(try await invalid { try await layouts.create(appId: appId, body: layout("big", padding: Limits.maxLayoutBytes + 5_000)) } == [""])
        let small = try await layouts.create(appId: appId, body: layout("small", padding: 5_000))
        #expect(try await invalid {
            try await layouts.update(appId: appId, id: "small", precondition: .oneOf([small.revision]), edit: .replace(layout("small", padding: Limits.maxLayoutBytes + 5_000)))
        } == [""])
        // Layouts of about 200 KB each, until the app's layouts together would pass their cap.
        var accepted = 0, size = 0
        for n in 0..<20 {
            do {
                size = try await layouts.create(appId: appId, body: layout("l\(n)", padding: 200_000)).body.serialized().count
                accepted += 1
            } catch StoreError.invalid(let errors) {
                #expect(errors.map(\.pointer) == [""] && errors[0].message.contains("layouts"), "\(errors)")
                break
            }
        }
        #expect(accepted == (Limits.maxLayoutsBytesPerApp - small.body.serialized().count) / size, "\(accepted) layouts of \(size) bytes each")
        #expect(try await storage.listText(.layouts, appId: appId, limit: 50, offset: 0).total == accepted + 1)
    }
}
