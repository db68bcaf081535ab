import Foundation
import Hummingbird
import RiversCore
import RiversLayout
import RiversStore

/// The server-side preview: frames of every component and cell of a screen on a device, as JSON
/// or drawn as SVG (`?format=svg`).
struct PreviewController {
    let store: any FamilyRepository & PluginRepository & SavedScreenRepository
    let helpers: APIHelpers

    func options(_ appId: String) async throws -> Screen.ReadOptions {
        try await store.registry(appId: appId).readOptions
    }

    func register(on routes: RouteRegistrar<RiversContext>) {
        let appRoutes = routes.appScoped()
        routes.on(.get, "devices", need: .authenticated) { _, _ in
            JSONResponse(["items": .array(DevicePreset.all.map(Self.presetJSON))])
        }
        appRoutes.on(.get, "screens/{id}/preview", need: .role(.viewer)) { request, context in
            let app = context.app
            let device = try Self.device(query: request.uri.queryParameters)
            let id = try context.pathParameter("id")
            return try await helpers.previews.run(app: app.id) {
                let saved = try await store.savedScreen(appId: app.id, id: id)
                return try render(saved.screen, family: saved.family, device: device, sample: nil, options: saved.options, request: request)
            }
        }
        appRoutes.on(.post, "cell-preview", need: .role(.viewer)) { request, context in
            let body = try await helpers.body(request)
            return try await helpers.previews.run(app: context.app.id) { try cellPreview(request, body: body) }
        }
        appRoutes.on(.post, "preview", need: .role(.viewer)) { request, context in
            let app = context.app
            let body = try await helpers.body(request)
            let problems = Problems()
            guard let r = ObjectReader(body, at: "", problems: problems) else { throw Problem.invalid(problems.errors, count: problems.count) }
            r.rejectUnknownKeys(["screen", "device", "sample"])
            var device = try Self.device(query: request.uri.queryParameters)
            if let given = r.object["device"], !given.isNull { device = Self.device(json: given, problems: problems) ?? device }
            let sample = Self.sample(r.object["sample"], problems: problems)
            // An unsaved screen may not have a name yet.
            var screenJSON = r.object["screen"] ?? .null
            if var o = screenJSON.objectValue, o["name"] == nil || o["name"] == .null || o["name"]?.stringValue?.allSatisfy(\.isWhitespace) == true {
                o["name"] = "Preview"
                screenJSON = .object(o)
            }
            let screenProblems = Problems()
            let options = try await options(app.id)
            let screen = Screen.read(screenJSON.removingBookkeeping(), options: options, problems: screenProblems)
            problems.add(screenProblems, under: "/screen")
            if !problems.isEmpty, let familyId = screenJSON["family"]?.stringValue, !familyId.isEmpty, familyId.utf8.count <= 200 {
                // A screen that does not read is still checked against its family, so that one
                // answer lists every problem (the family and cell styles as a valid one would get).
                let family: Family? = switch try await familyLookup(appId: app.id, id: familyId) {
                case .found(let found): found
                case .missing, .unreadable: nil
                }
                for e in References.checkCellStyles(json: screenJSON["ui_components"], family: family, familyId: familyId) {
                    problems.add("/screen" + e.pointer, e.message)
                }
            }
            guard problems.isEmpty, let screen else { throw Problem.invalid(problems.errors, count: problems.count) }
            return try await helpers.previews.run(app: app.id) {
                let family = try await familyLookup(appId: app.id, id: screen.family)
                return try render(screen, family: family, device: device, sample: sample, options: options, request: request, pointerPrefix: "/screen")
            }
        }
    }

    /// `POST /apps/{app}/cell-preview`: one cell of a family that need not be saved, laid out by
    /// the engine as a one-item section, with its content's frames relative to the cell.
    func cellPreview(_ request: Request, body: JSONValue) throws -> Response {
        let problems = Problems()
        guard let r = ObjectReader(body, at: "", problems: problems) else { throw Problem.invalid(problems.errors, count: problems.count) }
        r.rejectUnknownKeys(["family", "cell_style", "device"])
        let familyProblems = Problems()
        var familyJSON = r.object["family"] ?? .null
        // An unsaved family may not have an id yet.
        if var o = familyJSON.objectValue, o["id"] == nil || o["id"] == .string("") || o["id"] == .null {
            o["id"] = "PREVIEW"
            familyJSON = .object(o)
        }
        let family = familyJSON.isNull ? nil : Family.read(familyJSON.removingBookkeeping(), problems: familyProblems)
        if familyJSON.isNull { problems.add("/family", "is required: the family, as saved or as being edited") }
        problems.add(familyProblems, under: "/family")
        let styleId = r.string("cell_style", required: true, maxLength: 200)
        var device: Device?
        if let given = r.object["device"], !given.isNull { device = Self.device(json: given, problems: problems) }
        guard problems.isEmpty, let family, let styleId else { throw Problem.invalid(problems.errors, count: problems.count) }
        guard let style = family.cellStyle(styleId) else {
            throw Problem.invalid([FieldError("/cell_style", "the family has no cell style \(styleId.prefix(200))")])
        }
        let chosen = device ?? Device(width: family.referenceSize.width, height: family.referenceSize.height, scale: 2)
        let input = LayoutRequest.cell(style, family: family, device: chosen)
        let layout = LayoutEngine.layout(input)
        guard let section = layout.sections.first, let cell = section.items.first else {
            throw Problem.invalid([FieldError("/cell_style", "the cell cannot be laid out")])
        }
        let warnings = layout.warnings.map(\.message)
        // Frames relative to the cell: differences of rounded edges stay on the pixel grid.
        let content = section.content(of: cell).map { node -> ContentNodeLayout in
            var node = node
            node.frame.x -= cell.frame.x
            node.frame.y -= cell.frame.y
            return node
        }
        let format = request.uri.queryParameters["format"].map(String.init) ?? "json"
        switch format {
        case "svg":
            return Response(
                status: .ok, headers: [.contentType: "image/svg+xml; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: SVGRenderer.renderCell(
                    width: cell.frame.width, height: cell.frame.height, content: content, warnings: warnings))))
        case "json":
            func frame(_ f: LayoutFrame) -> JSONValue { ["x": .number(f.x), "y": .number(f.y), "width": .number(f.width), "height": .number(f.height)] }
            let stylePointer = "/cell_styles/\(family.cellStyles.firstIndex { $0.id == style.id } ?? 0)/content"
            let nodes: [JSONValue] = content.map { node in
                var o: [String: JSONValue] = [
                    "node": .number(Double(node.node)), "pointer": .string(stylePointer + node.info.pointer),
                    "kind": .string(node.info.kind.rawValue), "frame": frame(node.frame),
                ]
                if let role = node.info.role { o["role"] = .string(role.rawValue) }
                if let lines = node.info.lines { o["lines"] = .number(Double(lines)) }
                if let placeholder = node.info.placeholder { o["placeholder"] = .string(placeholder.rawValue) }
                return .object(o)
            }
            let answer: JSONValue = [
                "device": ["width": .number(chosen.width), "height": .number(chosen.height), "scale": .number(chosen.scale)],
                "m": .number(LayoutEngine.scaleFactor(device: layout.device, family: input.family)),
                "cell": ["width": .number(cell.frame.width), "height": .number(cell.frame.height)],
                "content": .array(nodes),
                "warnings": .array(warnings.map(JSONValue.string)),
            ]
            return Response(
                status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: answer.serialized())))
        default:
            throw Problem.badParameter("format", "format is json (the default) or svg")
        }
    }

    /// An unsaved screen's family, as saved.
    func familyLookup(appId: String, id: String) async throws -> SavedScreen.FamilyLookup {
        do {
            return SavedScreen.FamilyLookup(stored: try await store.family(appId: appId, id: id).body)
        } catch StoreError.notFound {
            return .missing
        }
    }

    func render(
        _ screen: Screen, family lookup: SavedScreen.FamilyLookup, device: Device, sample: Sample?, options: Screen.ReadOptions, request: Request,
        pointerPrefix: String = ""
    ) throws -> Response {
        let family: Family
        switch lookup {
        case .found(let found): family = found
        case .missing: throw Problem.invalid([FieldError(pointerPrefix + "/family", "no family \"\(screen.family)\" in this app")])
        case .unreadable: throw Problem.invalid([FieldError(pointerPrefix + "/family", "family \(screen.family) cannot be read")])
        }
        let unknown = References.checkCellStyles(screen.uiComponents, family: family, familyId: family.id)
        if !unknown.isEmpty { throw Problem.invalid(unknown.map { FieldError(pointerPrefix + $0.pointer, $0.message) }) }
        let input = LayoutRequest(screen: screen, family: family, catalog: options.catalog, device: device, sample: sample)
        // The work budget is checked before the work: the cells to lay out, over all components.
        let items = LayoutEngine.itemCount(input)
        if items > Limits.maxPreviewItems {
            throw Problem.invalid([FieldError(
                pointerPrefix + "/ui_components",
                "a preview lays out at most \(Limits.maxPreviewItems) items in all, and this one would lay out \(items); lower the item limits or the sample counts")])
        }
        let layout = LayoutEngine.layout(input)
        // Laying out is cheap; the answer is not: its content nodes are counted before it is written.
        let nodes = Self.contentNodeCount(layout.sections)
        if nodes > Limits.maxPreviewContentNodes {
            throw Problem.invalid([FieldError(
                pointerPrefix + "/ui_components",
                "a preview draws at most \(Limits.maxPreviewContentNodes) content nodes in all (cells × the nodes of their cell style's content), and this one would draw \(nodes); lower the item limits or the sample counts")])
        }
        let format = request.uri.queryParameters["format"].map(String.init) ?? "json"
        switch format {
        case "svg":
            // A text draws one bar a line: the SVG's shapes are bounded like the nodes.
            let shapes = SVGRenderer.contentShapeCount(layout)
            if shapes > Limits.maxPreviewContentNodes {
                throw Problem.invalid([FieldError(
                    pointerPrefix + "/ui_components",
                    "an SVG preview draws at most \(Limits.maxPreviewContentNodes) content shapes in all (a text draws one a line), and this one would draw \(shapes); lower the item limits or the sample counts, or ask for JSON")])
            }
            return Response(
                status: .ok, headers: [.contentType: "image/svg+xml; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: SVGRenderer.renderBytes(layout))))
        case "json":
            return Response(
                status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: layout.jsonBytes())))
        default:
            throw Problem.badParameter("format", "format is json (the default) or svg")
        }
    }

    static func contentNodeCount(_ sections: [SectionLayout]) -> Int {
        sections.reduce(0) { $0 + $1.contentFrames.count + contentNodeCount($1.sections) }
    }

    static func presetJSON(_ preset: DevicePreset) -> JSONValue {
        [
            "id": .string(preset.id), "name": .string(preset.name), "kind": .string(preset.kind),
            "width": .number(preset.device.width), "height": .number(preset.device.height), "scale": .number(preset.device.scale),
        ]
    }

    static let defaultDevice = DevicePreset.all[0].device

    /// `?device=<preset id>` or `?width=&height=&scale=` (scale defaults to 2). With a preset, a
    /// size given too is still checked (an impossible number is never accepted), and the preset
    /// wins.
    static func device(query: Parameters) throws -> Device {
        func number(_ name: String, _ range: ClosedRange<Double>, default value: Double?) throws -> Double {
            guard let text = query[Substring(name)] else {
                if let value { return value }
                throw Problem.badParameter(name, "\(name) is required with width and height")
            }
            guard let n = Double(String(text)), n.isFinite, range.contains(n) else {
                throw Problem.badParameter(name, "\(name) must be a number from \(Int(range.lowerBound)) to \(Int(range.upperBound))")
            }
            return n
        }
        if let id = query["device"] {
            for (name, range) in [("width", 1.0...10_000), ("height", 1...10_000), ("scale", 1...4)] where query[Substring(name)] != nil {
                _ = try number(name, range, default: nil)
            }
            guard let preset = DevicePreset.all.first(where: { $0.id == id }) else {
                throw Problem.badParameter("device", "no device preset \(id.prefix(40)); see GET /api/v1/devices")
            }
            return preset.device
        }
        guard query["width"] != nil || query["height"] != nil || query["scale"] != nil else { return defaultDevice }
        return Device(width: try number("width", 1...10_000, default: nil), height: try number("height", 1...10_000, default: nil),
                      scale: try number("scale", 1...4, default: 2))
    }

    static func device(json: JSONValue, problems: Problems) -> Device? {
        if let id = json.stringValue {
            guard let preset = DevicePreset.all.first(where: { $0.id == id }) else {
                problems.add("/device", "no device preset \(id.prefix(40)); see GET /api/v1/devices")
                return nil
            }
            return preset.device
        }
        guard let r = ObjectReader(json, at: "/device", problems: problems) else { return nil }
        r.rejectUnknownKeys(["width", "height", "scale"])
        let width = r.number("width", required: true, minimum: 1, maximum: Limits.maxLength)
        let height = r.number("height", required: true, minimum: 1, maximum: Limits.maxLength)
        let scale = r.number("scale", minimum: 1, maximum: 4) ?? 2
        guard let width, let height else { return nil }
        return Device(width: width, height: height, scale: scale)
    }

    /// `{"counts": {"0": 12, "2.0": 3}}` (items per component, by its path: an index, or indices joined
    /// by dots into groups) or `{"children": [3, 5]}` (a sender's children).
    static func sample(_ json: JSONValue?, problems: Problems) -> Sample? {
        guard let json, !json.isNull else { return nil }
        guard let r = ObjectReader(json, at: "/sample", problems: problems) else { return nil }
        r.rejectUnknownKeys(["counts", "children"])
        if r.has("counts"), r.has("children") {
            problems.add("/sample", "give counts or children, not both")
            return nil
        }
        if let counts = ObjectReader(r.object["counts"], at: "/sample/counts", problems: problems, required: false) {
            guard counts.object.count <= Limits.maxComponentsPerScreen else {
                problems.add("/sample/counts", "gives counts for at most \(Limits.maxComponentsPerScreen) components")
                return nil
            }
            var result: [[Int]: Int] = [:]
            for key in counts.object.keys.sorted() {
                guard let path = Sample.path(key), path.allSatisfy({ (0..<Limits.maxComponentsPerScreen).contains($0) }) else {
                    problems.add(
                        counts.at(key),
                        "keys are component paths: an index (0, 1, …), or indices joined by dots into groups (2.0: the first child of the third component), at most \(Sample.maxPathDepth) deep")
                    continue
                }
                // "2" and "02" name one component: its first count stands.
                if let n = counts.integer(key, minimum: 0, maximum: Limits.maxPreviewItems), result[path] == nil { result[path] = n }
            }
            return .counts(result)
        }
        if let children = r.array("children") {
            guard children.count <= Limits.maxComponentsPerScreen else {
                problems.add("/sample/children", "gives at most \(Limits.maxComponentsPerScreen) children")
                return nil
            }
            var result: [Int] = []
            for (i, c) in children.enumerated() {
                // Checked as a Double first, so a number like 1e19 never reaches Int().
                guard let n = c.numberValue, n >= 0, n.rounded() == n, n <= Double(Limits.maxPreviewItems) else {
                    problems.add("/sample/children/\(i)", "must be a whole number of items from 0 to \(Limits.maxPreviewItems)")
                    continue
                }
                result.append(Int(n))
            }
            return .children(result)
        }
        problems.add("/sample", "give counts (items per component index) or children (a sender's children)")
        return nil
    }
}

