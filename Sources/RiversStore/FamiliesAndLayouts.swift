import Foundation
import PostgresNIO
import RiversCore
import RiversLayout

/// A change computed from the current JSON inside the write's transaction (PUT ignores it, PATCH
/// merges into it), so a read-modify-write can never interleave with another writer.
public typealias Transform = @Sendable (JSONValue) throws -> JSONValue

/// What a PUT or a PATCH asks of a resource kept as JSON.
public enum ResourceEdit: Sendable {
    /// The body is the resource as it is to be (PUT).
    case replace(JSONValue)
    /// A JSON merge patch (RFC 7396) onto the current resource (PATCH).
    case mergePatch(JSONValue)

    /// The edit as a function of the resource's current API form (families and layouts).
    public var transform: Transform {
        switch self {
        case .replace(let body): return { _ in body }
        case .mergePatch(let patch): return { current in current.mergePatched(with: patch) }
        }
    }
}

/// What a write of a screen asks: applied to the typed current screen, with no JSON made of it.
public enum ScreenEdit: Sendable {
    case replace(JSONValue)
    case mergePatch(JSONValue)
    /// The screen's top-level components in a new order, by id (every one exactly once).
    case reorder([String])

    public init(_ edit: ResourceEdit) {
        switch edit {
        case .replace(let body): self = .replace(body)
        case .mergePatch(let patch): self = .mergePatch(patch)
        }
    }
}

/// The `id` of a replacing body must be absent or equal to the id in the path.
public func bodyKeepingId(_ body: JSONValue, id: String, normalize: (String) -> String? = { $0 }) throws -> JSONValue {
    guard var o = body.objectValue else { return body }
    if let given = o["id"], !given.isNull {
        guard let s = given.stringValue, normalize(s) == normalize(id) else {
            throw StoreError.invalid([FieldError("/id", "cannot be changed (this is \(id))")])
        }
    }
    o["id"] = .string(id)
    return .object(o)
}

extension Store {
    public func family(appId: String, id: String) async throws -> Record {
        try await get(.families, appId: appId, id: id)
    }

    /// The JSON paths of the cell styles of components, one per depth a group may nest.
    static let cellStylePaths: String = (1...(Component.maxDepth + 1)).map { depth in
        "'$" + String(repeating: ".ui_components[*]", count: depth) + ".cell_styles[*]'"
    }.joined(separator: ", ")
}

/// The families and layouts of one app in one PostgreSQL transaction: SQL only.
extension PostgresContentTransaction {
    func stored(_ table: DocumentTable, id: String) async throws -> Record? {
        try await store.fetchIfPresent(table, appId: appId, id: id, on: connection, lock: .update)
    }

    func exists(_ table: DocumentTable, id: String) async throws -> Bool {
        try await store.fetchText(table, appId: appId, id: id, on: connection, lock: .none) != nil
    }

    func count(_ table: DocumentTable) async throws -> Int {
        try await store.number("SELECT count(*)::int FROM \(unescaped: table.rawValue) WHERE app_id = \(appId)::uuid", on: connection)
    }

    func delete(_ table: DocumentTable, id: String) async throws {
        try await connection.query(
            "DELETE FROM \(unescaped: table.rawValue) WHERE app_id = \(appId)::uuid AND id = CAST(\(id) AS \(unescaped: table.idType))", logger: logger)
    }

    // MARK: Families

    func insert(_ family: Family) async throws -> Record {
        do {
            return try await returned(
                """
                INSERT INTO families (app_id, id, body) VALUES (\(appId)::uuid, \(family.id), \(family.json.serializedString())::jsonb)
                RETURNING revision, created_at, updated_at
                """, body: family.json)
        } catch let error as PSQLError where error.isUniqueViolation {
            throw StoreError.conflict("a family \(family.id) exists already in this app", usedBy: [])
        }
    }

    func update(_ family: Family) async throws -> Record {
        try await returned(
            """
            UPDATE families SET body = \(family.json.serializedString())::jsonb, revision = revision + 1, updated_at = now()
            WHERE app_id = \(appId)::uuid AND id = \(family.id)
            RETURNING revision, created_at, updated_at
            """, body: family.json)
    }

    /// PostgreSQL picks the styles out of the stored bodies (nothing is parsed here, however large
    /// the screens): those of the components and of the children of groups, at every depth a
    /// group may nest, and nothing else (an `extra` member that happens to be called
    /// `cell_styles` names no style).
    func users(ofFamily familyId: String) async throws -> [FamilyUser] {
        let rows = try await connection.query(
            """
            WITH users AS (
                SELECT 'screen' AS kind, id::text AS id, body, position FROM screens WHERE app_id = \(appId)::uuid AND family = \(familyId)
                UNION ALL
                SELECT 'layout', id, body, position FROM layouts WHERE app_id = \(appId)::uuid AND family = \(familyId)
            )
            SELECT kind, id, body->>'name',
                   ARRAY(SELECT DISTINCT style #>> '{}'
                         FROM unnest(ARRAY[\(unescaped: Store.cellStylePaths)]::jsonpath[]) AS path,
                              jsonb_path_query(body, path) AS style
                         WHERE jsonb_typeof(style) = 'string'),
                   position
            FROM users ORDER BY 1 DESC, 5
            """, logger: logger)
        var users: [FamilyUser] = []
        for try await (kind, id, name, styles, _) in rows.decode((String, String, String, [String], Int).self) {
            users.append(FamilyUser(kind: ResourceUse.Kind(rawValue: kind) ?? .screen, id: id, name: name, cellStyles: Set(styles)))
        }
        return users
    }

    func familyToCheck(id: String) async throws -> Family? {
        try await store.loadFamily(appId, id: id, on: connection)
    }

    func storedAppBytes() async throws -> Int {
        try await store.appBytes(appId: appId, on: connection)
    }

    func storedLayoutBytes(id: String) async throws -> (layout: Int, all: Int) {
        var bytes = (layout: 0, all: 0)
        for try await row in try await connection.query(
            """
            SELECT coalesce((SELECT body_bytes FROM layouts WHERE app_id = \(appId)::uuid AND id = \(id)), 0),
                   (SELECT coalesce(sum(body_bytes), 0)::int FROM layouts WHERE app_id = \(appId)::uuid)
            """, logger: logger
        ).decode((Int, Int).self) { bytes = row }
        return bytes
    }

    // MARK: Layouts

    func insert(_ layout: LayoutTemplate) async throws -> Record {
        try await returned(
            """
            INSERT INTO layouts (app_id, id, family, body)
            VALUES (\(appId)::uuid, \(layout.id), \(layout.family), \(layout.json.serializedString())::jsonb)
            RETURNING revision, created_at, updated_at
            """, body: layout.json)
    }

    func update(_ layout: LayoutTemplate) async throws -> Record {
        try await returned(
            """
            UPDATE layouts SET family = \(layout.family), body = \(layout.json.serializedString())::jsonb,
                revision = revision + 1, updated_at = now()
            WHERE app_id = \(appId)::uuid AND id = \(layout.id)
            RETURNING revision, created_at, updated_at
            """, body: layout.json)
    }

    /// Runs an insert or update `RETURNING revision, created_at, updated_at`.
    private func returned(_ statement: PostgresQuery, body: JSONValue) async throws -> Record {
        try await store.returnedRecord(connection.query(statement, logger: logger), body: body)
    }
}
