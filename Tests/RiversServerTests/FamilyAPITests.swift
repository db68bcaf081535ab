import Foundation
import Hummingbird
import RiversCore
import Testing

@Suite("Families API")
struct FamilyAPITests {
    @Test("create, read, list, replace, patch and delete a family; sizes follow the family")
    func crud() async throws {
        try await withAPI { api in
            let created = try await api.create("families", phoneFamily)
            #expect(created.etag == "\"1\"")
            #expect(created.headers[.location] == "\(api.base)/families/FAMILY_1")
            let styles = created["cell_styles"]?.arrayValue ?? []
            #expect(styles.count == 2)
            #expect(styles.first?["computed"]?["width"] == 300)
            #expect(styles.first?["computed"]?["height"] == 80)
            #expect(styles.last?["computed"]?["width"] == 145)
            #expect(styles.last?["computed"]?["height"]?.numberValue.map { abs($0 - 145 / 1.5) < 1e-9 } == true)

            let read = try await api.request(.get, "families/FAMILY_1")
            #expect(read.status == .ok)
            #expect(read["name"] == "Phones")
            #expect(read["revision"] == 1)
            // A GET answers with the stored text and its bookkeeping written around it: the same
            // JSON, member for member, as the create that wrote it, with the same ETag.
            #expect(read.json == created.json)
            #expect(read.etag == created.etag)
            #expect(read.headers[.contentType] == "application/json; charset=utf-8")

            let list = try await api.request(.get, "families")
            #expect(list["total"] == 1)
            #expect(list["items"]?.arrayValue?.first?["id"] == "FAMILY_1")

            // PUT with what GET returned, changed: read-only members are accepted back.
            var body = read.json.objectValue!
            body["interitem_spacing"] = 20
            let replaced = try await api.request(.put, "families/FAMILY_1", json: .object(body), headers: [.ifMatch: read.etag!])
            #expect(replaced.status == .ok, "\(replaced.text)")
            #expect(replaced["revision"] == 2)
            #expect(replaced["cell_styles"]?.arrayValue?.last?["computed"]?["width"] == 140)  // (300 − 20) / 2

            let patched = try await api.request(.patch, "families/FAMILY_1", json: ["name": "Phones (new)", "insets": ["left": 20]])
            #expect(patched.status == .ok, "\(patched.text)")
            #expect(patched["name"] == "Phones (new)")
            #expect(patched["insets"]?["left"] == 20)
            #expect(patched["insets"]?["right"] == 10)
            #expect(patched["revision"] == 3)

            let deleted = try await api.request(.delete, "families/FAMILY_1", headers: [.ifMatch: "\"3\""])
            #expect(deleted.status == .noContent)
            #expect(try await api.request(.get, "families/FAMILY_1").status == .notFound)
        }
    }

    @Test("every family rule is checked, and all problems come back at once")
    func validation() async throws {
        try await withAPI { api in
            let response = try await api.request(.post, "families", json: [
                "id": "bad id", "reference_size": ["width": 320, "height": -1],
                "insets": ["left": -5],
                "interitem_spacing": -1,
                "cell_styles": [
                    ["id": "A", "columns": 0, "height": 10],
                    ["id": "A", "columns": 1, "width": 100, "height": 10],
                    ["id": "B", "height": 10],
                    ["id": "C", "columns": 1],
                    ["id": "D", "columns": 1, "height": 10, "aspect_ratio": 2],
                ],
                "colour": "red",
            ])
            #expect(response.status == .unprocessableContent)
            #expect(response.headers[.contentType] == "application/problem+json")
            #expect(response["type"] == "/problems/validation")
            #expect(response["status"] == 422)
            #expect(response["field"] != nil)
            let expected = [
                "/id", "/reference_size/height", "/insets/left", "/interitem_spacing", "/cell_styles/0/columns",
                "/cell_styles/1/id", "/cell_styles/1", "/cell_styles/2", "/cell_styles/3", "/cell_styles/4", "/colour",
            ]
            for pointer in expected {
                #expect(response.pointers.contains(pointer), "missing \(pointer) in \(response.pointers)")
            }
            #expect(try await api.request(.get, "families").json["total"] == 0)
        }
    }

    @Test("cells that cannot fit are refused")
    func cellsThatDoNotFit() async throws {
        try await withAPI { api in
            let response = try await api.request(.post, "families", json: [
                "id": "TINY", "reference_size": ["width": 100, "height": 100],
                "insets": ["left": 10, "right": 10], "interitem_spacing": 10,
                "cell_styles": [
                    ["id": "TOO_WIDE", "width": 81, "height": 10],
                    ["id": "TOO_MANY", "columns": 9, "height": 10],
                    ["id": "FITS", "width": 80, "height": 10],
                ],
            ])
            #expect(response.status == .unprocessableContent)
            #expect(response.pointers == ["/cell_styles/0/width", "/cell_styles/1/columns"])
        }
    }

    @Test("duplicate family ids conflict; unknown ones are 404")
    func duplicatesAndMissing() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let again = try await api.request(.post, "families", json: phoneFamily)
            #expect(again.status == .conflict)
            #expect(try await api.request(.get, "families/NOPE").status == .notFound)
            #expect(try await api.request(.put, "families/NOPE", json: phoneFamily).status == .notFound)
            #expect(try await api.request(.delete, "families/NOPE").status == .notFound)
            let renamed = try await api.request(.put, "families/FAMILY_1", json: phoneFamily.mergePatched(with: ["id": "OTHER"]))
            #expect(renamed.status == .unprocessableContent)
            #expect(renamed.pointers == ["/id"])
        }
    }

    @Test("a family in use cannot be deleted, nor lose a cell style in use")
    func familyInUse() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let screen = try await api.create("screens", screenBody("Home", components: [component("grid", ["GRID_1"])]))
            let delete = try await api.request(.delete, "families/FAMILY_1")
            #expect(delete.status == .conflict)
            #expect(delete["used_by"]?.arrayValue?.first?["id"] == screen["id"])

            let dropGrid = phoneFamily.mergePatched(with: ["cell_styles": [["id": "LIST_1", "columns": 1, "height": 80]]])
            let put = try await api.request(.put, "families/FAMILY_1", json: dropGrid)
            #expect(put.status == .conflict)
            #expect(put["used_by"]?.arrayValue?.first?["cell_styles"] == ["GRID_1"])
            #expect(try await api.request(.get, "families/FAMILY_1").json["revision"] == 1)
        }
    }

    /// The styles in use are those of components at every depth groups nest, in screens and
    /// layouts; a member of `extra` that happens to be called `cell_styles` names none.
    @Test("the cell styles in use are found at every depth, and only in components")
    func cellStylesInUseAtEveryDepth() async throws {
        try await withAPI { api in
            var family = phoneFamily.objectValue!
            family["cell_styles"] = .array((phoneFamily["cell_styles"]?.arrayValue ?? []) + [
                ["id": "DEEP_1", "columns": 1, "height": 40], ["id": "LAYOUT_1", "columns": 1, "height": 40],
                ["id": "EXTRA_1", "columns": 1, "height": 40],
            ])
            try await api.create("families", .object(family))
            // Five levels: four groups, the list inside the last.
            var deepest: JSONValue = component("list", ["DEEP_1"])
            for _ in 0..<4 { deepest = ["component_type": "group", "ui_components": [deepest]] }
            var withExtra = component("grid", ["GRID_1"]).objectValue!
            withExtra["extra"] = ["cell_styles": ["EXTRA_1"]]
            try await api.create("screens", screenBody("Home", components: [deepest, .object(withExtra)]))
            try await api.create("layouts", ["name": "L", "family": "FAMILY_1", "ui_components": [component("list", ["LAYOUT_1"])]])

            func keeping(_ ids: [String]) -> JSONValue {
                var f = family
                f["cell_styles"] = .array((family["cell_styles"]?.arrayValue ?? []).filter { ids.contains($0["id"]?.stringValue ?? "") })
                return .object(f)
            }
            let dropDeep = try await api.request(.put, "families/FAMILY_1", json: keeping(["LIST_1", "GRID_1", "LAYOUT_1", "EXTRA_1"]))
            #expect(dropDeep.status == .conflict)
            #expect(dropDeep["used_by"]?.arrayValue?.compactMap { $0["cell_styles"] } == [["DEEP_1"]])
            let dropLayout = try await api.request(.put, "families/FAMILY_1", json: keeping(["LIST_1", "GRID_1", "DEEP_1", "EXTRA_1"]))
            #expect(dropLayout.status == .conflict)
            #expect(dropLayout["used_by"]?.arrayValue?.first?["kind"] == "layout")
            // The style only an extra member names goes.
            let dropExtra = try await api.request(.put, "families/FAMILY_1", json: keeping(["LIST_1", "GRID_1", "DEEP_1", "LAYOUT_1"]))
            #expect(dropExtra.status == .ok, "\(dropExtra.text)")
        }
    }

    @Test("lists are paged")
    func paging() async throws {
        try await withAPI { api in
            for i in 1...5 {
                try await api.create("families", phoneFamily.mergePatched(with: ["id": .string("FAMILY_\(i)")]))
            }
            let first = try await api.request(.get, "families?limit=2")
            #expect(first["items"]?.arrayValue?.map { $0["id"] } == ["FAMILY_1", "FAMILY_2"])
            #expect(first["total"] == 5)
            #expect(first["next_offset"] == 2)
            let last = try await api.request(.get, "families?limit=2&offset=4")
            #expect(last["items"]?.arrayValue?.map { $0["id"] } == ["FAMILY_5"])
            #expect(last["next_offset"] == .null)
            let bad = try await api.request(.get, "families?limit=0")
            #expect(bad.status == .badRequest)
            #expect(bad["field"] == "limit")
        }
    }

    @Test("a family or layout stored under older rules takes a patch onto its stored form, and says what no longer reads")
    func storedUnderOlderRules() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let layout = try await api.create("layouts", ["name": "L", "family": "FAMILY_1", "ui_components": [component("list")]])
            let layoutId = try #require(layout["id"]?.stringValue)
            // Rules made stricter since these were saved: a column count, a component type.
            let client = try await TestDatabase.client()
            try await client.query(
                "UPDATE families SET body = jsonb_set(body, '{cell_styles,0,columns}', '0') WHERE app_id = \(api.app.id)::uuid AND id = 'FAMILY_1'",
                logger: testLogger)
            try await client.query(
                """
                UPDATE layouts SET body = jsonb_set(body, '{ui_components,0,component_type}', '"retired"')
                WHERE app_id = \(api.app.id)::uuid AND id = \(layoutId)
                """, logger: testLogger)

            let family = try await api.request(.patch, "families/FAMILY_1", json: ["name": "Renamed"])
            #expect(family.status == .unprocessableContent && family.pointers == ["/cell_styles/0/columns"], "\(family.text)")
            let mended = try await api.request(
                .patch, "families/FAMILY_1", json: ["name": "Renamed", "cell_styles": [["id": "LIST_1", "columns": 1, "height": 80], ["id": "GRID_1", "columns": 2, "aspect_ratio": 1.5]]])
            #expect(mended.status == .ok && mended["name"] == "Renamed", "\(mended.text)")

            let renamed = try await api.request(.patch, "layouts/\(layoutId)", json: ["name": "Renamed"])
            #expect(renamed.status == .unprocessableContent && renamed.pointers == ["/ui_components/0/component_type"], "\(renamed.text)")
            let replaced = try await api.request(.patch, "layouts/\(layoutId)", json: ["ui_components": [component("grid", ["GRID_1"])]])
            #expect(replaced.status == .ok && replaced["ui_components"]?.arrayValue?.first?["component_type"] == "grid", "\(replaced.text)")
        }
    }
}
