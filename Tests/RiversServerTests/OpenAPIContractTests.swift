import Testing

@testable import RiversCore
@testable import RiversServer

/// The editor keeps the bounds and choices of a family and of a cell's content to draw them before
/// asking the server; Tests/js/editor-contract.test.mjs checks its copies against `openapi.json`,
/// and this suite checks the document against the constants the server checks with, so a change
/// on either side that the other did not follow fails a test. Fast tier: no database.
@Suite("openapi.json states the server's own bounds and choices")
struct OpenAPIContractTests {
    let schemas: JSONValue

    init() throws {
        schemas = try #require(try JSONValue.parse(OpenAPIDocument.bytes)["components"]?["schemas"])
    }

    /// A schema's property; for a nullable `anyOf`, its first (non-null) form.
    func property(_ schema: String, _ name: String, first: Bool = false) throws -> JSONValue {
        let p = try #require(schemas[schema]?["properties"]?[name], "\(schema).\(name)")
        return first ? try #require(p["anyOf"]?.arrayValue?.first, "\(schema).\(name) has no anyOf") : p
    }

    func number(_ value: JSONValue?) -> Double? { value?.numberValue }

    /// An enum without its `null`.
    func choices(_ value: JSONValue) -> [String] { (value["enum"]?.arrayValue ?? []).compactMap(\.stringValue) }

    @Test func aFamilysBoundsAreLimitsSwift() throws {
        #expect(number(try property("CellStyle", "columns")["maximum"]) == Double(Limits.maxColumns))
        #expect(number(try property("CellStyle", "width", first: true)["maximum"]) == Limits.maxLength)
        #expect(number(try property("CellStyle", "height", first: true)["maximum"]) == Limits.maxCellHeight)
        #expect(number(try property("CellStyle", "aspect_ratio")["minimum"]) == Limits.aspectRatioRange.lowerBound)
        #expect(number(try property("CellStyle", "aspect_ratio")["maximum"]) == Limits.aspectRatioRange.upperBound)
        #expect(number(try property("Family", "interitem_spacing", first: true)["maximum"]) == Limits.maxLength)
        #expect(number(try property("Family", "line_spacing", first: true)["maximum"]) == Limits.maxLength)
        #expect(number(try property("Family", "cell_styles")["maxItems"]) == Double(Limits.maxCellStylesPerFamily))
    }

    @Test func theDataSourceTypesAppsKnowArePublishChecks() throws {
        let known = (try property("ComponentData", "type")["x-known-types"]?.arrayValue ?? []).compactMap(\.stringValue)
        #expect(known == PublishCheck.knownDataSourceTypes)
    }

    @Test func aCellsContentBoundsAndChoicesAreContentNodes() throws {
        let content = try property("CellStyle", "content")
        #expect(number(content["x-max-nodes"]) == Double(ContentNode.maxNodes))
        #expect(number(content["x-max-depth"]) == Double(ContentNode.maxDepth))
        #expect(number(try property("ContentNode", "children")["maxItems"]) == Double(ContentNode.maxNodes - 1))
        #expect(number(try property("ContentNode", "max_lines")["maximum"]) == Double(ContentNode.maxLines))
        #expect(choices(try property("ContentNode", "axis")) == ContentNode.Axis.allCases.map(\.rawValue))
        #expect(choices(try property("ContentNode", "alignment")) == ContentNode.StackAlignment.allCases.map(\.rawValue))
        #expect(choices(try property("ContentNode", "distribution")) == ContentNode.Distribution.allCases.map(\.rawValue))
        #expect(choices(try property("ContentNode", "align")) == ContentNode.Alignment.allCases.map(\.rawValue))
        #expect(choices(try property("ContentNode", "placeholder")) == ContentNode.Placeholder.allCases.map(\.rawValue))
        #expect(choices(try property("ContentNode", "role")) == ContentNode.TextRole.allCases.map(\.rawValue))
        // Every kind the reader takes, and no other; each kind's members.
        #expect(Set(choices(try property("ContentNode", "kind"))) == Set(ContentNode.keysByKind.keys))
        let members = Set((schemas["ContentNode"]?["properties"]?.objectValue ?? [:]).keys)
        #expect(members == ContentNode.keysByKind.values.reduce(Set<String>()) { $0.union($1) })
    }
}
