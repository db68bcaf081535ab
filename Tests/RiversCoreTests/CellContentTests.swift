import Testing

@testable import RiversCore

/// Reading cell styles with content and lengths that are scalable or fixed.
@Suite("Cell content: reading")
struct CellContentReadingTests {
    func family(_ styles: [JSONValue], insets: JSONValue = ["top": 10, "left": 10, "bottom": 10, "right": 10]) -> JSONValue {
        ["id": "FAMILY_1", "reference_size": ["width": 320, "height": 568], "insets": insets, "interitem_spacing": 10, "line_spacing": 10, "cell_styles": .array(styles)]
    }

    func problems(_ json: JSONValue) -> [String] {
        let problems = Problems()
        _ = Family.read(json, problems: problems)
        return problems.errors.map { "\($0.pointer): \($0.message)" }
    }

    let example: JSONValue = [
        "id": "GRID_1", "columns": 2, "height": "fit",
        "content": [
            "kind": "stack", "axis": "vertical", "padding": 8, "spacing": 4, "alignment": "fill",
            "children": [
                ["kind": "image", "aspect_ratio": "16:9", "placeholder": "poster"],
                ["kind": "text", "role": "title", "line_height": 17, "max_lines": 1],
            ],
        ],
    ]

    @Test func theWorkedExampleReadsAndWritesBack() throws {
        let problems = Problems()
        let family = try #require(Family.read(family([example]), problems: problems), "\(problems.errors)")
        let style = family.cellStyles[0]
        #expect(style.height == .fit)
        let content = try #require(style.content)
        #expect(content.nodeCount == 3)
        guard case .stack(let stack) = content.kind else { Issue.record("not a stack"); return }
        #expect(stack.axis == .vertical && stack.spacing == 4 && stack.alignment == .fill)
        #expect(content.padding == .init(all: 8))
        guard case .image(let image) = content.children[0].kind else { Issue.record("not an image"); return }
        #expect(image.aspectRatio?.height(forWidth: 129) == 72.5625)
        // What is written reads back the same, and writes the same again.
        let written = family.json()
        let again = try #require(Family.read(written, problems: Problems()))
        #expect(again == family)
        #expect(again.json() == written)
        #expect(written["cell_styles"]?.arrayValue?.first?["content"]?["children"]?.arrayValue?.first?["aspect_ratio"] == "16:9")
    }

    @Test func lengthsAreScalableOrFixed() throws {
        let json = family(
            [["id": "ONE", "width": ["fixed": 100], "height": ["fixed": 44]]],
            insets: ["top": 10, "left": ["fixed": 16], "bottom": 10, "right": ["fixed": 16]])
        let found = Problems()
        let read = try #require(Family.read(json, problems: found), "\(found.errors)")
        #expect(read.insets.left == .fixed(16) && read.insets.top == Length(10))
        #expect(read.cellStyles[0].width == .points(.fixed(100)))
        #expect(read.json()["insets"]?["left"] == ["fixed": 16])
        #expect(read.json()["insets"]?["top"] == 10)
        #expect(problems(family([["id": "A", "columns": 1, "height": ["fixed": -1]]])) == ["/cell_styles/0/height/fixed: must be greater than 0"])
        #expect(problems(family([["id": "A", "columns": 1, "height": ["points": 1]]])) == [
            "/cell_styles/0/height/points: is not a known field",
            "/cell_styles/0/height: a length is a number (scalable) or {\"fixed\": points}",
        ])
        #expect(problems(family([["id": "A", "columns": 1, "height": "tall"]])) == [
            "/cell_styles/0/height: a length is a number (scalable) or {\"fixed\": points}, not string",
        ])
    }

    @Test func fitNeedsContent() {
        #expect(problems(family([["id": "A", "columns": 1, "height": "fit"]])) == [
            "/cell_styles/0/height: \"fit\" takes the height the content needs: give the cell style content",
        ])
    }

    @Test func badNodesArePointedAt() {
        func content(_ node: JSONValue) -> [String] {
            problems(family([["id": "A", "columns": 1, "height": 50, "content": node]]))
        }
        #expect(content(["kind": "video"]) == [
            "/cell_styles/0/content/kind: \"video\" is not a kind of node; the kinds are stack, overlay, image, text and spacer",
        ])
        #expect(content(["kind": "stack", "axis": "vertical", "children": [["kind": "text", "font_size": -3]]]) == [
            "/cell_styles/0/content/children/0/font_size: must be greater than 0",
        ])
        #expect(content(["kind": "stack", "children": []]) == ["/cell_styles/0/content/axis: is required: vertical or horizontal"])
        #expect(content(["kind": "image"]) == ["/cell_styles/0/content: an image needs an aspect_ratio or a frame height"])
        #expect(content(["kind": "image", "aspect_ratio": "16:0"]).first?.hasPrefix("/cell_styles/0/content/aspect_ratio: an aspect ratio is") == true)
        #expect(content(["kind": "spacer", "padding": ["top": -1]]) == ["/cell_styles/0/content/padding/top: must not be negative"])
        #expect(content(["kind": "spacer", "frame": ["min_width": 20, "max_width": 10]]) == ["/cell_styles/0/content/frame/max_width: is less than min_width"])
        #expect(content(["kind": "text", "children": []]) == ["/cell_styles/0/content/children: is not a known field"])
        #expect(content(["kind": "text", "align": "middle"]) == [
            "/cell_styles/0/content/align: is one of top_leading, top, top_trailing, leading, center, trailing, bottom_leading, bottom, bottom_trailing",
        ])
        #expect(content(["kind": "text", "offset": ["x": -20, "y": 4]]).isEmpty, "offsets may be negative")
    }

    @Test func treesAreBoundedInDepthAndSize() {
        func content(_ node: JSONValue) -> [String] {
            problems(family([["id": "A", "columns": 1, "height": 50, "content": node]]))
        }
        // Nine levels: the ninth is refused where it is.
        var deep: JSONValue = ["kind": "spacer"]
        for _ in 0..<8 { deep = ["kind": "stack", "axis": "vertical", "children": [deep]] }
        #expect(content(deep) == ["/cell_styles/0/content" + String(repeating: "/children/0", count: 8) + ": content is at most 8 levels deep"])
        var eight: JSONValue = ["kind": "spacer"]
        for _ in 0..<7 { eight = ["kind": "stack", "axis": "vertical", "children": [eight]] }
        #expect(content(eight).isEmpty)

        // 65 nodes: a stack of 64 spacers.
        let wide: JSONValue = ["kind": "stack", "axis": "vertical", "children": .array(Array(repeating: ["kind": "spacer"], count: 64))]
        #expect(content(wide) == ["/cell_styles/0/content/children/63: content holds at most 64 nodes"])
        let full: JSONValue = ["kind": "stack", "axis": "vertical", "children": .array(Array(repeating: ["kind": "spacer"], count: 63))]
        #expect(content(full).isEmpty)
    }
}
