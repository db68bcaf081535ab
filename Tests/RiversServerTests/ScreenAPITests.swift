import Foundation
import Hummingbird
import RiversCore
import Testing

@Suite("Screens and layouts API")
struct ScreenAPITests {
    @Test("the tour: a family, a layout, a root screen from it and a connected screen under it")
    func tour() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let layout = try await api.create("layouts", [
                "id": "HOME_LAYOUT", "name": "Home", "family": "FAMILY_1",
                "ui_components": [component("hero", ["LIST_1"]), component("grid", ["GRID_1"], extra: ["rules": ["item_limit": "6"]])],
            ])
            #expect(layout["ui_components"]?.arrayValue?.last?["rules"]?["item_limit"] == 6)

            let home = try await api.create("screens", ["name": "Home", "from_layout": "HOME_LAYOUT"])
            #expect(home["home"] == true, "the first screen becomes home")
            #expect(home["family"] == "FAMILY_1")
            let homeComponents = home["ui_components"]?.arrayValue ?? []
            #expect(homeComponents.map { $0["component_type"] } == ["hero", "grid"])
            let layoutIds = Set((layout["ui_components"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue })
            #expect(homeComponents.allSatisfy { !layoutIds.contains($0["id"]?.stringValue ?? "") }, "components get ids of their own")
            #expect(home["screen_type"] == "home_1")

            let homeId = try #require(home["id"]?.stringValue)
            let show = try await api.create("screens", screenBody("Show page", components: [component("list")], extra: [
                "connected": true, "parent": .string(homeId),
            ]))
            #expect(show["connected"] == true)
            #expect(show["parent"] == .string(homeId))
            #expect(show["home"] == false)
            #expect(show["screen_type"] == "show_page_2")

            let list = try await api.request(.get, "screens")
            #expect(list["items"]?.arrayValue?.map { $0["name"] } == ["Home", "Show page"])
            let readBack = try await api.request(.get, "screens/\(homeId)")
            #expect(readBack.json == home.json)
        }
    }

    @Test("screen references hold: family, cell styles, parent, targets")
    func references() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let missingFamily = try await api.request(.post, "screens", json: screenBody("A").mergePatched(with: ["family": "FAMILY_9"]))
            #expect(missingFamily.status == .unprocessableContent)
            #expect(missingFamily.pointers == ["/family"])

            let badStyles = try await api.request(.post, "screens", json: screenBody("A", components: [
                component("list", ["LIST_1"]),
                component("group", [], extra: ["ui_components": [component("grid", ["LIST_1", "NOPE"])]]),
            ]))
            #expect(badStyles.status == .unprocessableContent)
            #expect(badStyles.pointers == ["/ui_components/1/ui_components/0/cell_styles/1"])

            let stranger = UUIDText.random()
            let badLinks = try await api.request(.post, "screens", json: screenBody("A", components: [
                component("list", extra: ["data": ["source": "1", "type": "APPLICASTER_COLLECTION", "target": .string(stranger)]]),
            ], extra: ["parent": .string(stranger)]))
            #expect(badLinks.status == .unprocessableContent)
            #expect(Set(badLinks.pointers) == ["/parent", "/ui_components/0/data/target"])
            #expect(try await api.request(.get, "screens").json["total"] == 0, "nothing was half-written")
        }
    }

    @Test("shape problems and reference problems come back together, at their pointers")
    func everyProblemAtOnce() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let stranger = UUIDText.random()
            let response = try await api.request(.post, "screens", json: [
                "name": "", "family": "FAMILY_1", "colour": 1, "parent": .string(stranger),
                "ui_components": [
                    ["component_type": "nope", "cell_styles": ["NOPE"]],
                    component("grid", ["GRID_1", "MISSING"], extra: ["data": ["source": "1", "type": "T", "target": .string(stranger)]]),
                ],
            ])
            #expect(response.status == .unprocessableContent)
            #expect(Set(response.pointers) == [
                "/name", "/colour", "/parent", "/ui_components/0/component_type", "/ui_components/0/cell_styles/0",
                "/ui_components/1/cell_styles/1", "/ui_components/1/data/target",
            ], "\(response.pointers)")
            let wrongFamily = try await api.request(.post, "screens", json: ["name": "X", "family": "lower case", "ui_components": [component("list", ["NOPE"])]])
            #expect(wrongFamily.pointers == ["/family"], "a malformed family id is one problem, not also a missing family")
        }
    }

    @Test("a connected screen's components carry no data source")
    func connectedScreensHaveNoDataSource() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let response = try await api.request(.post, "screens", json: screenBody("Show", components: [
                ["component_type": "unknown_thing"],
                component("list", source: "3126"),
            ], extra: ["connected": true]))
            #expect(response.status == .unprocessableContent)
            #expect(Set(response.pointers) == ["/ui_components/0/component_type", "/ui_components/1/data/source", "/ui_components/1/data/type"])
        }
    }

    @Test("bodies: unknown fields 422, malformed 400, too large 413, not JSON 415")
    func badBodies() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let unknown = try await api.request(.post, "screens", json: screenBody("A").mergePatched(with: ["colour": "red"]))
            #expect(unknown.status == .unprocessableContent)
            #expect(unknown.pointers == ["/colour"])
            #expect(unknown["field"] == "/colour")

            let malformed = try await api.request(.post, "screens", body: "{\"name\": ")
            #expect(malformed.status == .badRequest)
            #expect(malformed.headers[.contentType] == "application/problem+json")
            #expect(malformed["detail"]?.stringValue?.contains("line 1") == true)

            let big = String(repeating: "x", count: 70 * 1024)
            let tooLarge = try await api.request(.post, "screens", json: screenBody("A").mergePatched(with: ["styles": ["note": .string(big)]]))
            #expect(tooLarge.status == .contentTooLarge)
            #expect(tooLarge["type"] == "/problems/too-large")

            let form = try await api.request(.post, "screens", body: "name=x", headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(form.status == .unsupportedMediaType)

            let wrongType = try await api.request(.post, "screens", json: ["name": 5, "family": "FAMILY_1", "home": "true", "ui_components": "none"])
            #expect(wrongType.status == .unprocessableContent)
            #expect(Set(wrongType.pointers) == ["/name", "/home", "/ui_components"])
            #expect(try await api.request(.get, "screens").json["total"] == 0)
        }
    }

    @Test("exactly one home: the first screen, and moving the flag moves it")
    func home() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let a = try await api.create("screens", screenBody("A"))
            let b = try await api.create("screens", screenBody("B"))
            #expect(a["home"] == true)
            #expect(b["home"] == false)
            let aId = a["id"]!.stringValue!, bId = b["id"]!.stringValue!

            let moved = try await api.request(.patch, "screens/\(bId)", json: ["home": true])
            #expect(moved["home"] == true)
            let aNow = try await api.request(.get, "screens/\(aId)")
            #expect(aNow["home"] == false)
            #expect(aNow["revision"] == 2, "a screen whose home flag moved has a new revision")

            let unset = try await api.request(.patch, "screens/\(bId)", json: ["home": false])
            #expect(unset.status == .unprocessableContent)
            #expect(unset.pointers == ["/home"])

            let created = try await api.create("screens", screenBody("C").mergePatched(with: ["home": true]))
            #expect(created["home"] == true)
            #expect(try await api.request(.get, "screens/\(bId)").json["home"] == false)

            // Deleting the home screen hands the flag to the first remaining screen.
            #expect(try await api.request(.delete, "screens/\(created["id"]!.stringValue!)").status == .noContent)
            #expect(try await api.request(.get, "screens/\(aId)").json["home"] == true)
            let homes = try await api.request(.get, "screens").json["items"]?.arrayValue?.filter { $0["home"] == true }
            #expect(homes?.count == 1)
        }
    }

    @Test("screen_type is generated, unique, read-only and never reused")
    func screenTypes() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let a = try await api.create("screens", screenBody("Live TV"))
            #expect(a["screen_type"] == "live_tv_1")
            let given = try await api.request(.post, "screens", json: screenBody("X").mergePatched(with: ["screen_type": "mine"]))
            #expect(given.status == .unprocessableContent)
            #expect(given.pointers == ["/screen_type"])

            let b = try await api.create("screens", screenBody("Live TV"))
            #expect(b["screen_type"] == "live_tv_2", "a refused request takes no number")
            #expect(try await api.request(.delete, "screens/\(b["id"]!.stringValue!)").status == .noContent)
            let c = try await api.create("screens", screenBody("Live TV"))
            #expect(c["screen_type"] == "live_tv_3", "the deleted screen's value is not reused")
            let change = try await api.request(.patch, "screens/\(c["id"]!.stringValue!)", json: ["screen_type": "other"])
            #expect(change.status == .unprocessableContent)
        }
    }

    @Test("a screen others point at cannot be deleted; a parent cycle is refused")
    func referencedScreens() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let home = try await api.create("screens", screenBody("Home"))
            let homeId = home["id"]!.stringValue!
            let child = try await api.create("screens", screenBody("Child", extra: ["connected": true, "parent": .string(homeId)]))
            let childId = child["id"]!.stringValue!
            let linker = try await api.create("screens", screenBody("Linker", components: [
                component("list", source: "1", extra: ["data": ["source": "1", "type": "APPLICASTER_COLLECTION", "target": .string(childId)]]),
            ]))

            let deleteHome = try await api.request(.delete, "screens/\(homeId)")
            #expect(deleteHome.status == .conflict)
            #expect(deleteHome["used_by"]?.arrayValue?.map { $0["id"] } == [.string(childId)])
            let deleteChild = try await api.request(.delete, "screens/\(childId)")
            #expect(deleteChild.status == .conflict)
            #expect(deleteChild["used_by"]?.arrayValue?.first?["via"] == "target")

            let cycle = try await api.request(.patch, "screens/\(homeId)", json: ["parent": .string(childId)])
            #expect(cycle.status == .unprocessableContent)
            #expect(cycle.pointers == ["/parent"])

            #expect(try await api.request(.delete, "screens/\(linker["id"]!.stringValue!)").status == .noContent)
            #expect(try await api.request(.delete, "screens/\(childId)").status == .noContent)
        }
    }

    @Test("components are reordered in one request, kept in order, and checked")
    func reorder() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let screen = try await api.create("screens", screenBody("Home", components: [
                component("hero", extra: ["id": "a"]), component("grid", ["GRID_1"], extra: ["id": "b"]), component("list", extra: ["id": "c"]),
            ]))
            let id = screen["id"]!.stringValue!
            let reordered = try await api.request(.post, "screens/\(id)/reorder", json: ["component_ids": ["c", "a", "b"]], headers: [.ifMatch: screen.etag!])
            #expect(reordered.status == .ok, "\(reordered.text)")
            #expect(reordered["ui_components"]?.arrayValue?.map { $0["id"] } == ["c", "a", "b"])
            #expect(try await api.request(.get, "screens/\(id)").json["ui_components"]?.arrayValue?.map { $0["component_type"] } == ["list", "hero", "grid"])

            let partial = try await api.request(.post, "screens/\(id)/reorder", json: ["component_ids": ["a", "a", "x"]])
            #expect(partial.status == .unprocessableContent)
            #expect(Set(partial.pointers) == ["/component_ids/1", "/component_ids/2", "/component_ids"])
            let stale = try await api.request(.post, "screens/\(id)/reorder", json: ["component_ids": ["a", "b", "c"]], headers: [.ifMatch: screen.etag!])
            #expect(stale.status == .preconditionFailed)
        }
    }

    @Test("layouts: CRUD and reference checks")
    func layouts() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let bad = try await api.request(.post, "layouts", json: ["id": "L", "name": "L", "family": "FAMILY_1", "ui_components": [component("grid", ["NOPE"])]])
            #expect(bad.status == .unprocessableContent)
            #expect(bad.pointers == ["/ui_components/0/cell_styles/0"])
            let both = try await api.request(.post, "layouts", json: ["id": "L", "family": "FAMILY_1", "ui_components": [component("grid", ["NOPE"]), ["component_type": "nope"]]])
            #expect(Set(both.pointers) == ["/name", "/ui_components/0/cell_styles/0", "/ui_components/1/component_type"], "\(both.pointers)")
            let layout = try await api.create("layouts", ["id": "L", "name": "L", "family": "FAMILY_1", "ui_components": [component("grid", ["GRID_1"])]])
            let put = try await api.request(.put, "layouts/L", json: ["name": "Renamed", "family": "FAMILY_1"], headers: [.ifMatch: layout.etag!])
            #expect(put.status == .ok)
            #expect(put["name"] == "Renamed")
            #expect(put["ui_components"] == [])
            let missingLayout = try await api.request(.post, "screens", json: ["name": "X", "from_layout": "NOPE"])
            #expect(missingLayout.status == .unprocessableContent)
            #expect(missingLayout.pointers == ["/from_layout"])
            #expect(try await api.request(.delete, "layouts/L").status == .noContent)
            #expect(try await api.request(.get, "layouts/L").status == .notFound)
        }
    }
}
