import Foundation
import PostgresNIO
import RiversCore

extension Store {
    /// Everything of an app the document is made from, screens in display order.
    public struct AppContent: Sendable {
        public var screens: [Screen]
        public var families: [String: Family]
        public var registry: PluginRegistry
    }

    func content(appId: String, on connection: PostgresConnection) async throws -> AppContent {
        var families: [String: Family] = [:]
        for try await body in try await connection.query(
            "SELECT body::text FROM families WHERE app_id = \(appId)::uuid ORDER BY position", logger: logger
        ).decode(String.self) {
            if let family = Family.read(try JSONValue.parse(Array(body.utf8)), problems: Problems()) { families[family.id] = family }
        }
        var raw: [JSONValue] = []
        for try await body in try await connection.query(
            "SELECT (body || jsonb_build_object('home', home))::text FROM screens WHERE app_id = \(appId)::uuid ORDER BY position",
            logger: logger
        ).decode(String.self) {
            raw.append(try JSONValue.parse(Array(body.utf8)))
        }
        let registry = try await registry(appId: appId, on: connection)
        // Stored screens were valid when written. Their types are read as they are (a plugin may be
        // gone since); the publish check says which ones no longer have one.
        var options = registry.readOptions
        options.pluginScreenTypes.formUnion(raw.compactMap { $0["type"]?.stringValue })
        var known = options.catalog.types
        for body in raw {
            func collect(_ list: JSONValue?) {
                for c in list?.arrayValue ?? [] {
                    if let t = c["component_type"]?.stringValue, known[t] == nil {
                        known[t] = ComponentType(id: t, name: t, axis: .vertical, needsDataSource: false, holdsChildren: false, description: "unregistered")
                    }
                    collect(c["ui_components"])
                }
            }
            collect(body["ui_components"])
        }
        options.catalog = ComponentCatalog(Array(known.values))
        var screens: [Screen] = []
        for body in raw {
            let problems = Problems()
            guard let screen = Screen.read(body, options: options, problems: problems) else {
                throw StoreError.invalid(problems.errors)
            }
            screens.append(screen)
        }
        return AppContent(screens: screens, families: families, registry: registry)
    }
}
