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
        var texts: [[UInt8]] = []
        var types: Set<String> = []
        var componentTypes: Set<String> = []
        for try await (body, type, used) in try await connection.query(
            """
            SELECT (body || jsonb_build_object('home', home))::text, body->>'type',
                   ARRAY(SELECT jsonb_path_query(body, '$.**.component_type') #>> '{}')
            FROM screens WHERE app_id = \(appId)::uuid ORDER BY position
            """, logger: logger
        ).decode((String, String, [String]).self) {
            texts.append(Array(body.utf8))
            types.insert(type)
            componentTypes.formUnion(used)
        }
        let registry = try await registry(appId: appId, on: connection)
        // Stored screens were valid when written. Their types are read as they are (a plugin may be
        // gone since); the publish check says which ones no longer have one.
        var options = registry.readOptions
        options.pluginScreenTypes.formUnion(types)
        options.navigationTypes = nil
        options.hookPlugins = nil
        var known = options.catalog.types
        for t in componentTypes where known[t] == nil {
            known[t] = ComponentType(id: t, name: t, axis: .vertical, needsDataSource: false, holdsChildren: false, description: "unregistered")
        }
        options.catalog = ComponentCatalog(Array(known.values))
        var screens: [Screen] = []
        for result in await StoredScreens.read(texts, options: options) {
            switch result {
            case .success(let screen): screens.append(screen)
            case .failure(let failure): throw StoreError.invalid(failure.errors)
            }
        }
        return AppContent(screens: screens, families: families, registry: registry)
    }
}
