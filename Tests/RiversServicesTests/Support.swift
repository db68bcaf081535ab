import Foundation
import RiversCore
import RiversServices
import RiversStore
import Testing

/// Content in memory with one app, `appId`, and its family `FAMILY_1`.
func contentWithFamily(appId: String) async throws -> InMemoryContent {
    let storage = InMemoryContent()
    storage.addApp(id: appId)
    _ = try await FamilyService(storage: storage).create(appId: appId, body: family)
    return storage
}

/// The pointers of the problems a write is refused with (422); an issue when it is not refused.
func invalid<T>(_ write: () async throws -> T) async throws -> [String] {
    do {
        _ = try await write()
        Issue.record("the write was not refused")
        return []
    } catch StoreError.invalid(let errors) {
        return errors.map(\.pointer)
    }
}

let family: JSONValue = [
    "id": "FAMILY_1", "name": "Phones",
    "reference_size": ["width": 320, "height": 568],
    "insets": ["top": 10, "left": 10, "bottom": 10, "right": 10],
    "interitem_spacing": 10, "line_spacing": 10,
    "cell_styles": [["id": "LIST_1", "columns": 1, "height": 80]],
]

func list(_ source: String, styles: [String] = ["LIST_1"]) -> JSONValue {
    ["component_type": "list", "cell_styles": .array(styles.map(JSONValue.string)), "data": ["source": .string(source), "type": "APPLICASTER_COLLECTION"]]
}

func screen(_ name: String, _ components: [JSONValue] = [], family: String = "FAMILY_1", extra: [String: JSONValue] = [:]) -> JSONValue {
    var o: [String: JSONValue] = ["name": .string(name), "family": .string(family), "ui_components": .array(components)]
    o.merge(extra) { _, b in b }
    return .object(o)
}

extension RecordText {
    /// The text parsed, for assertions.
    var json: JSONValue { (try? JSONValue.parse(body.readableBytesView)) ?? .null }
}

extension Dictionary where Key == String, Value == JSONValue {
    var json: JSONValue { .object(self) }
}
