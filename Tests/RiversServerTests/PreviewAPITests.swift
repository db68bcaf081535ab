import Foundation
import Hummingbird
import RiversCore
import Testing

@Suite("Preview API")
struct PreviewAPITests {
    @Test("device presets")
    func devices() async throws {
        try await withAPI { api in
            let devices = try await api.request(.get, "/api/v1/devices")
            let sizes = devices["items"]?.arrayValue?.map { "\($0["width"]!.serializedString())x\($0["height"]!.serializedString())" }
            #expect(sizes == ["320x568", "375x667", "390x844", "768x1024", "1024x768", "1920x1080"])
        }
    }

    @Test("a saved screen's frames: the worked 2-column grid of 5 items")
    func savedScreen() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily.mergePatched(with: [
                "cell_styles": [["id": "LIST_1", "columns": 1, "height": 80], ["id": "GRID_1", "columns": 2, "height": 100]],
            ]))
            let screen = try await api.create("screens", screenBody("Home", components: [
                component("grid", ["GRID_1"], extra: ["rules": ["item_limit": 5]]),
                component("horizontal_list", ["GRID_1"], extra: ["rules": ["item_limit": 4], "header": ["visible": true, "style": "NO_SUCH_STYLE"]]),
            ]))
            let id = screen["id"]!.stringValue!
            let preview = try await api.request(.get, "screens/\(id)/preview?width=320&height=568&scale=2")
            #expect(preview.status == .ok, "\(preview.text)")
            #expect(preview["device"] == ["width": 320, "height": 568, "scale": 2])
            let grid = try #require(preview["sections"]?.arrayValue?.first)
            let frames = grid["items"]?.arrayValue?.map { [$0["frame"]!["x"]!, $0["frame"]!["y"]!, $0["frame"]!["width"]!] }
            #expect(frames == [[10, 10, 145], [165, 10, 145], [10, 120, 145], [165, 120, 145], [10, 230, 145]])
            #expect(grid["frame"] == ["x": 0, "y": 0, "width": 320, "height": 340])
            let row = try #require(preview["sections"]?.arrayValue?.last)
            #expect(row["frame"]?["y"] == 340, "sections stack without gaps")
            #expect(row["header"]?["height"] == 44, "a header style that is no cell style gets the default height")
            #expect(row["content_size"]?["width"] == 630, "10 + 4 × 145 + 3 × 10 + 10")

            let scaled = try await api.request(.get, "screens/\(id)/preview?device=tablet-768x1024")
            #expect(scaled["sections"]?.arrayValue?.first?["items"]?.arrayValue?.first?["frame"]?["width"] == 357, "columns share the device width: (768 − 30·m) / 2 with m = min(768/320, 1024/568)")

            let svg = try await api.request(.get, "screens/\(id)/preview?format=svg")
            #expect(svg.headers[.contentType]?.hasPrefix("image/svg+xml") == true)
            #expect(svg.text.hasPrefix("<?xml"))
            #expect(svg.text.components(separatedBy: "class=\"cell\"").count - 1 == 9)
        }
    }

    @Test("an unsaved screen with sample data; a connected screen filled by a sender's children")
    func unsaved() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let body: JSONValue = [
                "screen": ["family": "FAMILY_1", "ui_components": [component("list"), component("grid", ["GRID_1"])]],
                "device": ["width": 320, "height": 568, "scale": 3],
                "sample": ["counts": ["0": 2, "1": 3]],
            ]
            let preview = try await api.request(.post, "preview", json: body)
            #expect(preview.status == .ok, "\(preview.text)")
            #expect(preview["sections"]?.arrayValue?.map { $0["items"]?.arrayValue?.count ?? -1 } == [2, 3])

            let connected: JSONValue = [
                "screen": ["family": "FAMILY_1", "connected": true, "ui_components": [component("list"), component("grid", ["GRID_1"]), component("list")]],
                "sample": ["children": [4, 1]],
            ]
            let filled = try await api.request(.post, "preview", json: connected)
            #expect(filled["sections"]?.arrayValue?.map { $0["items"]?.arrayValue?.count ?? -1 } == [4, 1, 0])
            #expect(filled["warnings"]?.arrayValue?.contains { $0["component_index"] == 2 } == true)
        }
    }

    @Test("bad preview input is a clear 400 or 422")
    func badInput() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let screen = try await api.create("screens", screenBody("Home", components: [component("list")]))
            let id = screen["id"]!.stringValue!
            #expect(try await api.request(.get, "screens/\(id)/preview?width=0&height=5")["field"] == "width")
            #expect(try await api.request(.get, "screens/\(id)/preview?device=watch")["field"] == "device")
            #expect(try await api.request(.get, "screens/\(id)/preview?format=png")["field"] == "format")
            #expect(try await api.request(.get, "screens/\(UUIDText.random())/preview").status == .notFound)
            let bad = try await api.request(.post, "preview", json: [
                "screen": ["family": "NOPE_FAMILY", "ui_components": []], "device": ["width": -1], "sample": ["counts": ["x": 1]], "zoom": 2,
            ])
            #expect(bad.status == .unprocessableContent)
            #expect(Set(bad.pointers).isSuperset(of: ["/zoom", "/device/width", "/device/height", "/sample/counts/x"]))
            let noFamily = try await api.request(.post, "preview", json: ["screen": ["family": "NOPE_FAMILY"]])
            #expect(noFamily.pointers == ["/screen/family"])
        }
    }
}
