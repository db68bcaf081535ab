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

    @Test("migration 5: number and switch values stored as numbers and booleans become strings again")
    func pluginValuesBecomeText() async throws {
        let (client, _) = try await TestDatabase.freshDatabase(prefix: "rivers_migrate")
        let migrations = try TestDatabase.migrations
        try await #require(Migrator(client: client, migrations: migrations.filter { $0.version < 5 }, logger: testLogger).migrate().count == 4)
        // Data as the previous version stored it: the manifest's "18" and "true" rewritten.
        let manifest: JSONValue = [
            "identifier": "lock", "manifest_version": "1.0.0", "author_name": "A", "author_email": "a@example.com", "name": "Lock",
            "description": "A lock", "type": "general", "min_zapp_sdk": "1.0.0", "ui_builder_support": true, "screen": true,
            "styles": ["fields": [
                ["key": "size", "type": "number_input", "initial_value": 18],
                ["group": true, "fields": [["key": "on", "type": "switch", "initial_value": true]]],
                ["key": "title", "type": "text_input", "initial_value": "Hi"],
            ]],
        ]
        let appId = UUIDText.random(), screenId = UUIDText.random()
        let screen: JSONValue = [
            "id": .string(screenId), "name": "Lock", "type": "lock", "plugin_version": "1.0.0",
            "styles": ["size": 20, "on": false, "title": "Hello", "other": 3],
            "ui_components": [["id": "g", "component_type": "group", "ui_components": [
                ["id": "c", "component_type": "lock", "styles": ["size": 12, "on": true, "title": "x"]],
            ]]],
        ]
        let statements: [PostgresQuery] = [
            "INSERT INTO apps (id, slug, name) VALUES (\(appId)::uuid, 'migrate-five', 'M')",
            "INSERT INTO families (app_id, id, body) VALUES (\(appId)::uuid, 'FAMILY_1', '{}')",
            "INSERT INTO plugins (app_id, identifier, current_version) VALUES (\(appId)::uuid, 'lock', '1.0.0')",
            "INSERT INTO plugin_versions (app_id, identifier, manifest_version, manifest) VALUES (\(appId)::uuid, 'lock', '1.0.0', \(manifest.serializedString())::jsonb)",
            "INSERT INTO screens (app_id, id, screen_type, family, body) VALUES (\(appId)::uuid, \(screenId)::uuid, 'lock_1', 'FAMILY_1', \(screen.serializedString())::jsonb)",
        ]
        for statement in statements { try await client.query(statement, logger: testLogger) }
        try await #require(Migrator(client: client, migrations: migrations.filter { $0.version <= 5 }, logger: testLogger).migrate().map(\.version) == [5])

        func read(_ query: PostgresQuery) async throws -> JSONValue {
            var text = ""
            for try await value in try await client.query(query, logger: testLogger).decode(String.self) { text = value }
            return try JSONValue.parse(Array(text.utf8))
        }
        let stored = try await read("SELECT manifest::text FROM plugin_versions WHERE app_id = \(appId)::uuid")
        #expect(stored.at("styles", "fields", 0, "initial_value") == "18")
        #expect(stored.at("styles", "fields", 1, "fields", 0, "initial_value") == "true")
        #expect(stored.at("styles", "fields", 2, "initial_value") == "Hi")
        let body = try await read("SELECT body::text FROM screens WHERE app_id = \(appId)::uuid")
        #expect(body["styles"] == ["size": "20", "on": "false", "title": "Hello", "other": 3])
        #expect(body.at("ui_components", 0, "ui_components", 0, "styles") == ["size": "12", "on": "true", "title": "x"])
        // The registry reads the migrated manifest: values stay strings from now on.
        let parsed = try PluginManifest.parse(stored)
        #expect(parsed.field(section: "styles", key: "size")?.valuesAreText == true)
        #expect(parsed.validateValues(["size": "21", "on": "false"], section: "styles", pointerPrefix: "/styles") == [])
        #expect(parsed.normalizeValues(["size": 22], section: "styles").values == ["size": "22"])
    }

    @Test("migration 22: tokens and preview links made by a token that expires expire with it at the latest, along chains")
    func grantsEndWithTheirToken() async throws {
        let (client, _) = try await TestDatabase.freshDatabase(prefix: "rivers_migrate")
        let migrations = try TestDatabase.migrations
        try await #require(Migrator(client: client, migrations: migrations.filter { $0.version < 22 }, logger: testLogger).migrate().count == 21)
        let appId = UUIDText.random()
        let (maker, child, grandchild, sooner, own) = (UUIDText.random(), UUIDText.random(), UUIDText.random(), UUIDText.random(), UUIDText.random())
        let (link, ownLink) = (UUIDText.random(), UUIDText.random())
        func token(_ id: String, expires: String, by: String?) -> PostgresQuery {
            """
            INSERT INTO api_tokens (id, app_id, token_hash, name, expires_at, granted_by_token)
            VALUES (\(id)::uuid, \(appId)::uuid, decode(md5(\(id)), 'hex'), 't', \(unescaped: expires), \(by)::uuid)
            """
        }
        let statements: [PostgresQuery] = [
            "INSERT INTO apps (id, slug, name) VALUES (\(appId)::uuid, 'migrate-grants', 'M')",
            token(maker, expires: "now() + interval '1 hour'", by: nil),
            token(child, expires: "NULL", by: maker),
            token(grandchild, expires: "now() + interval '10 days'", by: child),
            token(sooner, expires: "now() + interval '1 minute'", by: maker),
            token(own, expires: "NULL", by: nil),
            """
            INSERT INTO preview_links (id, app_id, secret_hash, name, expires_at, granted_by_token)
            VALUES (\(link)::uuid, \(appId)::uuid, decode(md5(\(link)), 'hex'), 'l', now() + interval '7 days', \(maker)::uuid),
                   (\(ownLink)::uuid, \(appId)::uuid, decode(md5(\(ownLink)), 'hex'), 'l', now() + interval '7 days', \(own)::uuid)
            """,
        ]
        for statement in statements { try await client.query(statement, logger: testLogger) }
        try await #require(Migrator(client: client, migrations: migrations.filter { $0.version <= 22 }, logger: testLogger).migrate().map(\.version) == [22])
        var expiry: [String: Date?] = [:]
        for try await (id, at) in try await client.query(
            "SELECT id::text, expires_at FROM api_tokens UNION ALL SELECT id::text, expires_at FROM preview_links", logger: testLogger
        ).decode((String, Date?).self) { expiry[id] = at }
        let limit = try #require(expiry[maker] ?? nil)
        #expect(expiry[child] == limit && expiry[grandchild] == limit && expiry[link] == limit)
        #expect((expiry[sooner] ?? nil).map { $0 < limit } == true, "an earlier expiry stays")
        #expect(expiry[own] == .some(nil) && (expiry[ownLink] ?? nil).map { $0 > limit } == true, "what a token without expiry made is left alone")
    }

    @Test("migration 10: switches, numbers and tag_selects become what their plugins read")
    func pluginValuesByReader() async throws {
        let (client, _) = try await TestDatabase.freshDatabase(prefix: "rivers_migrate")
        let migrations = try TestDatabase.migrations
        try await #require(Migrator(client: client, migrations: migrations.filter { $0.version < 10 }, logger: testLogger).migrate().count > 0)
        // Values as earlier versions stored them: "true"/"false" strings, a one-element array, a
        // number where the manifest gives no numeric initial value, text where it gives a number.
        let ftue: JSONValue = [
            "identifier": "ftue", "manifest_version": "1.0.0", "author_name": "A", "author_email": "a@example.com", "name": "FTUE",
            "description": "First time", "type": "general", "min_zapp_sdk": "1.0.0", "ui_builder_support": true, "screen": true,
            "styles": ["fields": [
                ["key": "hidden", "type": "checkbox", "default": "0"],
                ["key": "height", "type": "number_input", "initial_value": 68],
                ["key": "kind", "type": "tag_select", "options": ["image", "text"], "initial_value": "text"],
                ["group": true, "fields": [["key": "size", "type": "number_input"]]],
            ]],
            "general": ["fields": [["key": "once", "type": "switch", "initial_value": "true"]]],
        ]
        let ad: JSONValue = [
            "identifier": "ad", "manifest_version": "1.0.0", "author_name": "A", "author_email": "a@example.com", "name": "Ad",
            "description": "An ad", "type": "ui_component", "min_zapp_sdk": "1.0.0", "ui_builder_support": true,
            "styles": ["fields": [
                ["key": "background", "type": "switch", "initial_value": "false"],
                ["key": "fs", "type": "number_input", "initial_value": "9"],
            ]],
        ]
        let appId = UUIDText.random(), screenId = UUIDText.random(), homeId = UUIDText.random()
        let screen: JSONValue = [
            "id": .string(screenId), "name": "FTUE", "type": "ftue", "plugin_version": "1.0.0",
            "styles": ["hidden": "true", "height": "70", "kind": ["image"], "size": 24, "other": "true"],
            "general": ["once": "false"],
        ]
        let home: JSONValue = [
            "id": .string(homeId), "name": "Home", "type": "general_content",
            "ui_components": [["id": "g", "component_type": "group", "ui_components": [
                ["id": "a", "component_type": "ad", "styles": ["background": "false", "fs": 11, "x": "false"]],
            ]]],
        ]
        let statements: [PostgresQuery] = [
            "INSERT INTO apps (id, slug, name) VALUES (\(appId)::uuid, 'migrate-ten', 'M')",
            "INSERT INTO families (app_id, id, body) VALUES (\(appId)::uuid, 'FAMILY_1', '{}')",
            "INSERT INTO plugins (app_id, identifier, current_version) VALUES (\(appId)::uuid, 'ftue', '1.0.0'), (\(appId)::uuid, 'ad', '1.0.0')",
            "INSERT INTO plugin_versions (app_id, identifier, manifest_version, manifest) VALUES (\(appId)::uuid, 'ftue', '1.0.0', \(ftue.serializedString())::jsonb)",
            "INSERT INTO plugin_versions (app_id, identifier, manifest_version, manifest) VALUES (\(appId)::uuid, 'ad', '1.0.0', \(ad.serializedString())::jsonb)",
            "INSERT INTO screens (app_id, id, screen_type, family, body) VALUES (\(appId)::uuid, \(screenId)::uuid, 'ftue_1', 'FAMILY_1', \(screen.serializedString())::jsonb)",
            "INSERT INTO screens (app_id, id, screen_type, family, body) VALUES (\(appId)::uuid, \(homeId)::uuid, 'home_2', 'FAMILY_1', \(home.serializedString())::jsonb)",
        ]
        for statement in statements { try await client.query(statement, logger: testLogger) }
        try await #require(Migrator(client: client, migrations: migrations, logger: testLogger).migrate().map(\.version).contains(10))

        func body(_ id: String) async throws -> JSONValue {
            var text = ""
            for try await value in try await client.query("SELECT body::text FROM screens WHERE id = \(id)::uuid", logger: testLogger).decode(String.self) { text = value }
            return try JSONValue.parse(Array(text.utf8))
        }
        let migrated = try await body(screenId)
        #expect(migrated["styles"] == ["hidden": "1", "height": 70, "kind": "image", "size": "24", "other": "true"])
        #expect(migrated["general"] == ["once": false])
        #expect(try await body(homeId).at("ui_components", 0, "ui_components", 0, "styles") == ["background": false, "fs": "11", "x": "false"])
        // The same values written by today's rule are what the migration wrote.
        let manifest = try PluginManifest.parse(ftue)
        #expect(manifest.normalizeValues(screen["styles"]!, section: "styles").values == migrated["styles"])
    }

    @Test("published versions can be neither changed nor deleted, but go with their app")
    func versionsAreImmutable() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            try await api.create("screens", screenBody("Home"))
            #expect(try await api.request(.post, "publish").status == .created)
            let client = try await TestDatabase.client()
            for statement: PostgresQuery in [
                "UPDATE versions SET note = 'changed' WHERE app_id = \(api.app.id)::uuid",
                "DELETE FROM versions WHERE app_id = \(api.app.id)::uuid",
            ] {
                await #expect(throws: PSQLError.self) { try await client.query(statement, logger: testLogger) }
            }
            #expect(try await api.request(.get, "versions").json["total"] == 1)
            // Deleting the app takes its versions along.
            try await client.query("DELETE FROM apps WHERE id = \(api.app.id)::uuid", logger: testLogger)
            var left = -1
            for try await n in try await client.query("SELECT count(*)::int FROM versions WHERE app_id = \(api.app.id)::uuid", logger: testLogger).decode(Int.self) { left = n }
            #expect(left == 0)
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
                for method in (item.objectValue ?? [:]).keys where ["get", "put", "post", "patch", "delete", "head", "options"].contains(method) {
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
