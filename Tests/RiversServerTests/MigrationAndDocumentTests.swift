import Foundation
import Hummingbird
import PostgresNIO
import RiversCore
import RiversServer
import RiversStore
import Testing

@Suite("Migrations and the OpenAPI document")
struct MigrationAndDocumentTests {
    @Test("migrations apply to an empty database, and running them again changes nothing")
    func migrationsFromEmpty() async throws {
        let (client, _) = try await TestDatabase.freshDatabase(prefix: "rivers_migrate")
        let migrations = try TestDatabase.migrations
        #expect(migrations.first?.version == 1)
        let migrator = Migrator(client: client, migrations: migrations, logger: testLogger)
        #expect(try await migrator.pending().count == migrations.count)
        let first = try await migrator.migrate()
        #expect(first.map(\.version) == migrations.map(\.version))
        #expect(try await migrator.pending().isEmpty)
        let second = try await migrator.migrate()
        #expect(second.isEmpty)
        #expect(try await migrator.applied() == migrations.map(\.version))
        var tables: [String] = []
        for try await name in try await client.query(
            "SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1", logger: testLogger
        ).decode(String.self) { tables.append(name) }
        for table in ["api_tokens", "apps", "families", "layouts", "schema_migrations", "screens"] {
            #expect(tables.contains(table), "\(table) in \(tables)")
        }
    }

    @Test("two migrators at once apply each file once")
    func concurrentMigrators() async throws {
        let (client, _) = try await TestDatabase.freshDatabase(prefix: "rivers_migrate")
        let migrations = try TestDatabase.migrations
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<3 {
                group.addTask { try await Migrator(client: client, migrations: migrations, logger: testLogger).migrate().count }
            }
            return try await group.reduce(0, +)
        }
        #expect(results == migrations.count)
    }

    @Test("GET /api/openapi.json describes exactly the routes the server has")
    func openAPIMatchesRoutes() async throws {
        let log = RouteLog()
        try await withAPI(routeLog: log) { api in
            let response = try await api.request(.get, "/api/openapi.json", authorized: false)
            #expect(response.status == .ok)
            #expect(response["openapi"]?.stringValue?.hasPrefix("3.1") == true)
            var documented: Set<String> = []
            for (path, item) in response["paths"]?.objectValue ?? [:] {
                for method in (item.objectValue ?? [:]).keys where ["get", "put", "post", "patch", "delete", "head"].contains(method) {
                    documented.insert("\(method.uppercased()) /\(path.drop(while: { $0 == "/" }))")
                }
            }
            let served = Set(log.routes.map { route -> String in
                let parts = route.split(separator: " ", maxSplits: 1)
                return "\(parts[0]) /\(parts[1].drop(while: { $0 == "/" }))"
            })
            #expect(!served.isEmpty)
            #expect(documented.subtracting(served).isEmpty, "documented but not served: \(documented.subtracting(served).sorted())")
            #expect(served.subtracting(documented).isEmpty, "served but not documented: \(served.subtracting(documented).sorted())")
            // Every documented operation names its responses, and problem responses use problem+json.
            for (_, item) in response["paths"]?.objectValue ?? [:] {
                for (_, operation) in item.objectValue ?? [:] {
                    guard let op = operation.objectValue, op["responses"] != nil else { continue }
                    #expect(op["operationId"]?.stringValue != nil)
                }
            }
        }
    }

    @Test("the health check and the component catalog")
    func healthAndCatalog() async throws {
        try await withAPI { api in
            #expect(try await api.request(.get, "/health", authorized: false)["status"] == "ok")
            let types = try await api.request(.get, "/api/v1/component-types")
            let ids = types["items"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            #expect(ids == ["list", "grid", "hero", "horizontal_list", "html_ticker", "tab_bar", "screen_picker", "banner", "group"])
            let group = types["items"]?.arrayValue?.last
            #expect(group?["holds_children"] == true)
            #expect(types["items"]?.arrayValue?.first?["needs_data_source"] == true)
            #expect(types["items"]?.arrayValue?[3]["axis"] == "horizontal")
        }
    }
}
