import Foundation
import Hummingbird
import RiversCore
@testable import RiversStore
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

    @Test("a saved screen is parsed once per revision: a change to it or its family, through the API or behind it, shows at once")
    func parsedOncePerRevision() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let screen = try await api.create("screens", screenBody("Home", components: [component("grid", ["GRID_1"], extra: ["rules": ["item_limit": 5]])]))
            let id = try #require(screen["id"]?.stringValue)
            func items() async throws -> [JSONValue] {
                let preview = try await api.request(.get, "screens/\(id)/preview?width=320&height=568")
                #expect(preview.status == .ok, "\(preview.text)")
                return preview["sections"]?.arrayValue?.first?["items"]?.arrayValue ?? []
            }
            #expect(try await items().count == 5)
            #expect(try await items().count == 5)
            #expect(api.store.savedScreens.count == 1, "kept for the next preview")

            // Removed and made again with its id (a version restored into the draft): revision 1
            // again, with other content; the preview follows.
            let draft = try await api.request(.get, "draft.json")
            guard case .array(var screens) = draft.json, case .object(var home) = screens.first,
                case .array(var components) = home["ui_components"], case .object(var first) = components.first
            else { Issue.record("no draft"); return }
            first["rules"] = ["item_limit": "4"]
            components[0] = .object(first)
            home["ui_components"] = .array(components)
            screens[0] = .object(home)
            #expect(try await api.request(.put, "draft.json", json: .array(screens)).status == .ok)
            #expect(try await api.request(.get, "screens/\(id)")["revision"] == 1)
            #expect(try await items().count == 4, "the preview kept from before the screen was made again")

            // A merge patch replaces the array: the component is sent whole.
            var component = try #require(screen["ui_components"]?.arrayValue?.first?.objectValue)
            component["rules"] = ["item_limit": 3]
            #expect(try await api.request(.patch, "screens/\(id)", json: ["ui_components": [.object(component)]]).status == .ok)
            #expect(try await items().count == 3)

            let family = try await api.request(.get, "families/FAMILY_1")
            var styles = family["cell_styles"]?.arrayValue ?? []
            let grid = try #require(styles.firstIndex { $0["id"] == "GRID_1" })
            styles[grid] = ["id": "GRID_1", "columns": 2, "height": 120]
            #expect(try await api.request(.patch, "families/FAMILY_1", json: ["cell_styles": .array(styles)]).status == .ok)
            #expect(try await items().first?["frame"]?["height"] == 120)

            // Changed behind the API (a migration, another tool): the revision moves, so does the preview.
            try await api.store.client.query(
                "UPDATE screens SET body = jsonb_set(body, '{ui_components,0,rules,item_limit}', '2'), revision = revision + 1 WHERE id = \(id)::uuid",
                logger: testLogger)
            #expect(try await items().count == 2)

            // The cache is bounded by an estimate of the memory its screens take.
            let saved = try await api.store.savedScreen(appId: api.app.id, id: id)
            let small = SavedScreenCache(budget: 1_000)
            let stamp = SavedScreenCache.Stamp(screen: "1:1", family: "1:1", plugins: "")
            small.keep(saved, for: .init(appId: "a", screenId: "big"), at: stamp, textBytes: 100)
            #expect(small.count == 0, "one screen may take a quarter of the budget at most")
            for n in 0..<4 { small.keep(saved, for: .init(appId: "a", screenId: "\(n)"), at: stamp, textBytes: 30) }
            #expect(small.count == 4, "4 × 240 of 1000")
            #expect(small.value(for: .init(appId: "a", screenId: "0"), at: stamp) != nil)
            #expect(small.value(for: .init(appId: "a", screenId: "0"), at: .init(screen: "2:1", family: "1:1", plugins: "")) == nil, "another revision")
            small.keep(saved, for: .init(appId: "a", screenId: "4"), at: stamp, textBytes: 30)
            #expect(small.count == 4, "past the budget the least recently used goes")
            #expect(small.value(for: .init(appId: "a", screenId: "1"), at: stamp) == nil, "1 was used least lately")
            #expect(small.value(for: .init(appId: "a", screenId: "0"), at: stamp) != nil, "0 was read just before")
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
            // A group's children by their paths ("1.0": the group's first child), not by "0".
            let grouped: JSONValue = [
                "screen": ["family": "FAMILY_1", "ui_components": [component("list"), component("group", [], extra: ["ui_components": [component("list"), component("grid", ["GRID_1"])]])]],
                "sample": ["counts": ["0": 2, "1.0": 1, "1.1": 4]],
            ]
            let inGroups = try await api.request(.post, "preview", json: grouped)
            #expect(inGroups.status == .ok, "\(inGroups.text)")
            #expect(inGroups["sections"]?.arrayValue?[0]["items"]?.arrayValue?.count == 2)
            #expect(inGroups["sections"]?.arrayValue?[1]["sections"]?.arrayValue?.map { $0["items"]?.arrayValue?.count ?? -1 } == [1, 4])

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
                "screen": ["family": "NOPE_FAMILY", "ui_components": []], "device": ["width": -1],
                "sample": ["counts": ["x": 1, "1.": 1, "0.200": 1, "2.0": 1]], "zoom": 2,
            ])
            #expect(bad.status == .unprocessableContent)
            #expect(Set(bad.pointers).isSuperset(of: ["/zoom", "/device/width", "/device/height", "/sample/counts/x", "/sample/counts/1.", "/sample/counts/0.200"]))
            #expect(!bad.pointers.contains("/sample/counts/2.0"), "a path into a group is a key")
            let noFamily = try await api.request(.post, "preview", json: ["screen": ["family": "NOPE_FAMILY"]])
            #expect(noFamily.pointers == ["/screen/family"])
        }
    }
}

/// Issue 16 through the API: content is part of the family, the preview lays it out and draws it,
/// and one cell of an unsaved family can be drawn on its own.
@Suite("Cell content API")
struct CellContentAPITests {
    static let posterStyle: JSONValue = [
        "id": "GRID_1", "columns": 2, "height": "fit",
        "content": [
            "kind": "stack", "axis": "vertical", "padding": 8, "spacing": 4, "alignment": "fill",
            "children": [
                ["kind": "image", "aspect_ratio": "16:9", "placeholder": "poster"],
                ["kind": "text", "role": "title", "line_height": 17, "max_lines": 1],
            ],
        ],
    ]
    static let family: JSONValue = [
        "id": "FAMILY_1", "reference_size": ["width": 320, "height": 568],
        "insets": ["top": 10, "left": 10, "bottom": 10, "right": 10], "interitem_spacing": 10, "line_spacing": 10,
        "cell_styles": [posterStyle],
    ]

    @Test("a family keeps its content and fixed lengths; the computed size of a fit cell is what its content needs")
    func familyRoundTrip() async throws {
        try await withAPI { api in
            let created = try await api.create("families", Self.family)
            let style = try #require(created["cell_styles"]?.arrayValue?.first)
            #expect(style["computed"] == ["width": 145, "height": 109.5625])
            #expect(style["content"] == Self.posterStyle["content"]?.mergePatched(with: ["padding": 8, "distribution": "fill", "children": [
                ["kind": "image", "aspect_ratio": "16:9", "placeholder": "poster"],
                ["kind": "text", "role": "title", "font_size": 14, "line_height": 17, "max_lines": 1],
            ]]))
            let patched = try await api.request(.patch, "families/FAMILY_1", json: ["insets": ["left": ["fixed": 16]]])
            #expect(patched.status == .ok, "\(patched.text)")
            #expect(patched["insets"]?["left"] == ["fixed": 16])
            #expect(patched["revision"] == 2)
            let bad = try await api.request(.patch, "families/FAMILY_1", json: ["cell_styles": [["id": "GRID_1", "columns": 2, "height": "fit", "content": ["kind": "video"]]]])
            #expect(bad.status == .unprocessableContent)
            #expect(bad["errors"]?.arrayValue?.first?["pointer"] == "/cell_styles/0/content/kind")
            #expect(try await api.request(.get, "families/FAMILY_1")["revision"] == 2, "a refused change changes nothing")
        }
    }

    @Test("the screen preview lays out and draws every cell's content")
    func screenPreview() async throws {
        try await withAPI { api in
            try await api.create("families", Self.family)
            let body: JSONValue = ["screen": ["family": "FAMILY_1", "ui_components": [component("grid", ["GRID_1"], extra: ["rules": ["item_limit": 2]])]]]
            let preview = try await api.request(.post, "preview?width=320&height=568&scale=2", json: body)
            #expect(preview.status == .ok, "\(preview.text)")
            let cells = preview["sections"]?.arrayValue?.first?["items"]?.arrayValue ?? []
            #expect(cells.count == 2)
            #expect(cells.first?["frame"] == ["x": 10, "y": 10, "width": 145, "height": 109.5])
            #expect(cells.first?["content"]?.arrayValue?.map { $0["frame"]! } == [
                ["x": 10, "y": 10, "width": 145, "height": 109.5],
                ["x": 18, "y": 18, "width": 129, "height": 72.5],
                ["x": 18, "y": 94.5, "width": 129, "height": 17],
            ])
            let svg = try await api.request(.post, "preview?format=svg", json: body)
            #expect(svg.text.components(separatedBy: "class=\"content-image poster\"").count - 1 == 2)
            #expect(svg.text.components(separatedBy: "class=\"content-text-line title\"").count - 1 == 2)
        }
    }

    @Test("a preview draws at most 200,000 content nodes in all, counted before the answer is written")
    func contentNodeBudget() async throws {
        try await withAPI { api in
            // 64 nodes a cell: a stack of 63 spacers.
            let big: JSONValue = ["kind": "stack", "axis": "vertical", "children": .array(Array(repeating: ["kind": "spacer"], count: 63))]
            try await api.create("families", Self.family.mergePatched(with: [
                "cell_styles": [Self.posterStyle, ["id": "BIG", "columns": 4, "height": 40, "content": big]],
            ]))
            func screen(_ limit: Int, components: Int) -> JSONValue {
                ["screen": ["family": "FAMILY_1", "ui_components": .array(Array(repeating: component("grid", ["BIG"], extra: ["rules": ["item_limit": .number(Double(limit))]]), count: components))]]
            }
            // 5 × 1,000 cells × 64 nodes = 320,000: refused, and nothing is written.
            let refused = try await api.request(.post, "preview", json: screen(1000, components: 5))
            #expect(refused.status == .unprocessableContent)
            #expect(refused["field"] == "/screen/ui_components")
            #expect(refused["detail"]?.stringValue?.contains("320000") == true, "\(refused.text)")
            // Under the budget: drawn (kept small, since every answer here is checked against the
            // OpenAPI document afterwards).
            let drawn = try await api.request(.post, "preview", json: screen(100, components: 1))
            #expect(drawn.status == .ok)
            #expect(drawn["sections"]?.arrayValue?.first?["items"]?.arrayValue?.first?["content"]?.arrayValue?.count == 64)
        }
    }

    @Test("an SVG preview counts a text's lines against the budget: many-line texts are refused before drawing")
    func svgShapeBudget() async throws {
        try await withAPI { api in
            // 64 nodes a cell: a stack of 63 texts of 20 lines, which SVG draws as 1,261 shapes.
            let text: JSONValue = ["kind": "text", "max_lines": 20]
            let tall: JSONValue = ["kind": "stack", "axis": "vertical", "children": .array(Array(repeating: text, count: 63))]
            try await api.create("families", Self.family.mergePatched(with: [
                "cell_styles": [Self.posterStyle, ["id": "TALL", "columns": 1, "height": 2000, "content": tall]],
            ]))
            func screen(_ limit: Int) -> JSONValue {
                ["screen": ["family": "FAMILY_1", "ui_components": [component("list", ["TALL"], extra: ["rules": ["item_limit": .number(Double(limit))]])]]]
            }
            // 300 cells: 19,200 nodes (under the node budget) but 378,300 shapes.
            let refused = try await api.request(.post, "preview?format=svg", json: screen(300))
            #expect(refused.status == .unprocessableContent)
            #expect(refused["field"] == "/screen/ui_components")
            #expect(refused["detail"]?.stringValue?.contains("378300") == true, "\(refused.text)")
            // 100 cells, 126,100 shapes: drawn, one bar a line.
            let drawn = try await api.request(.post, "preview?format=svg", json: screen(100))
            #expect(drawn.status == .ok)
            #expect(drawn.text.components(separatedBy: "content-text-line").count - 1 == 100 * 63 * 20)
        }
    }

    @Test("one cell of an unsaved family, at the reference size and on a device; errors point into the family")
    func cellPreview() async throws {
        try await withAPI { api in
            let reference = try await api.request(.post, "cell-preview", json: ["family": Self.family, "cell_style": "GRID_1"])
            #expect(reference.status == .ok, "\(reference.text)")
            #expect(reference["m"] == 1)
            #expect(reference["cell"] == ["width": 145, "height": 109.5])
            #expect(reference["content"]?.arrayValue?.map { $0["pointer"]! } == [
                "/cell_styles/0/content", "/cell_styles/0/content/children/0", "/cell_styles/0/content/children/1",
            ])
            #expect(reference["content"]?.arrayValue?[1]["frame"] == ["x": 8, "y": 8, "width": 129, "height": 72.5])

            // 375×667: m = 1.171875, the cell 169.921875 wide, fixed padding 8.
            var fixed = Self.family
            fixed = fixed.mergePatched(with: ["cell_styles": [Self.posterStyle.mergePatched(with: ["content": ["padding": ["fixed": 8]]])]])
            let onPhone = try await api.request(.post, "cell-preview", json: ["family": fixed, "cell_style": "GRID_1", "device": "phone-375x667"])
            #expect(onPhone.status == .ok, "\(onPhone.text)")
            #expect(onPhone["m"] == 1.171875)
            #expect(onPhone["content"]?.arrayValue?[1]["frame"]?["x"] == 8)

            let svg = try await api.request(.post, "cell-preview?format=svg", json: ["family": Self.family, "cell_style": "GRID_1"])
            #expect(svg.headers[.contentType]?.hasPrefix("image/svg+xml") == true)
            #expect(svg.text.contains("class=\"content-image poster\""))

            let badNode = try await api.request(.post, "cell-preview", json: [
                "family": Self.family.mergePatched(with: ["cell_styles": [Self.posterStyle.mergePatched(with: ["content": ["spacing": -1]])]]),
                "cell_style": "GRID_1",
            ])
            #expect(badNode.status == .unprocessableContent)
            #expect(badNode["field"] == "/family/cell_styles/0/content/spacing")
            let unknown = try await api.request(.post, "cell-preview", json: ["family": Self.family, "cell_style": "NOPE"])
            #expect(unknown["field"] == "/cell_style")
            let noFamily = try await api.request(.post, "cell-preview", json: ["cell_style": "GRID_1"])
            #expect(noFamily["field"] == "/family")
        }
    }
}
