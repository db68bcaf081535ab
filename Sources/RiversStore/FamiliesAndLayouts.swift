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

func validated<T>(_ read: (Problems) -> T?) throws -> T {
    let problems = Problems()
    guard let value = read(problems), problems.isEmpty else { throw StoreError.invalid(problems.errors) }
    return value
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
    // MARK: Families

    public func family(appId: String, id: String) async throws -> Record {
        try await get(.families, appId: appId, id: id)
    }

    public func createFamily(appId: String, body: JSONValue) async throws -> Record {
        let family = try validated { Family.read(body, problems: $0) }
        return try await client.transaction(logger: logger) { connection in
            if try await fetchIfPresent(.families, appId: appId, id: family.id, on: connection, lock: .none) != nil {
                throw StoreError.conflict("a family \(family.id) exists already in this app", usedBy: [])
            }
            try AppCaps.refuseAtCap(
                try await number("SELECT count(*)::int FROM families WHERE app_id = \(appId)::uuid", on: connection),
                limit: Limits.maxFamiliesPerApp, "families")
            do {
                let record = try await returnedRecord(
                    connection.query(
                        """
                        INSERT INTO families (app_id, id, body) VALUES (\(appId)::uuid, \(family.id), \(family.json.serializedString())::jsonb)
                        RETURNING revision, created_at, updated_at
                        """, logger: logger), body: family.json)
                try await checkAppSize(appId: appId, on: connection)
                return record
            } catch let error as PSQLError where error.isUniqueViolation {
                throw StoreError.conflict("a family \(family.id) exists already in this app", usedBy: [])
            }
        }
    }

    public func updateFamily(appId: String, id: String, precondition: RevisionPrecondition, transform: @escaping Transform) async throws -> Record {
        try await client.transaction(logger: logger) { connection in
            let current = try await fetch(.families, appId: appId, id: id, on: connection, lock: .update)
            try precondition.check(current.revision)
            let body = try bodyKeepingId(try transform(current.body).removingBookkeeping(), id: id)
            let family = try validated { Family.read(body, problems: $0) }
            if family.json == current.body.removingBookkeeping() { return current }
            // Cell styles that screens or layouts still use must stay.
            let styles = Set(family.cellStyles.map(\.id))
            var users: [ResourceUse] = []
            var missing: Set<String> = []
            for user in try await familyUsers(appId: appId, familyId: id, on: connection) {
                let lost = user.cellStyles.subtracting(styles)
                if !lost.isEmpty {
                    missing.formUnion(lost)
                    users.append(ResourceUse(kind: user.kind, id: user.id, name: user.name, cellStyles: lost.sorted()))
                }
            }
            if !users.isEmpty {
                throw StoreError.conflict(
                    "cell styles \(missing.sorted().listed()) are still used; change those components first",
                    usedBy: users)
            }
            let record = try await returnedRecord(
                connection.query(
                    """
                    UPDATE families SET body = \(family.json.serializedString())::jsonb, revision = revision + 1, updated_at = now()
                    WHERE app_id = \(appId)::uuid AND id = \(id)
                    RETURNING revision, created_at, updated_at
                    """, logger: logger), body: family.json)
            try await checkAppSize(appId: appId, on: connection)
            return record
        }
    }

    public func deleteFamily(appId: String, id: String, precondition: RevisionPrecondition) async throws {
        try await client.transaction(logger: logger) { connection in
            let current = try await fetch(.families, appId: appId, id: id, on: connection, lock: .update)
            try precondition.check(current.revision)
            let users = try await familyUsers(appId: appId, familyId: id, on: connection)
            if !users.isEmpty {
                throw StoreError.conflict("family \(id) is used by \(users.count) screen(s) or layout(s)", usedBy: users.map { ResourceUse(kind: $0.kind, id: $0.id, name: $0.name) })
            }
            try await connection.query("DELETE FROM families WHERE app_id = \(appId)::uuid AND id = \(id)", logger: logger)
        }
    }

    struct FamilyUser {
        var kind: ResourceUse.Kind
        var id: String
        var name: String
        var cellStyles: Set<String>
    }

    /// Screens and layouts on a family, with the cell styles their components name. PostgreSQL
    /// picks the styles out of the stored bodies (nothing is parsed here, however large the
    /// screens): those of the components and of the children of groups, at every depth a group
    /// may nest, and nothing else (an `extra` member that happens to be called `cell_styles`
    /// names no style).
    func familyUsers(appId: String, familyId: String, on connection: PostgresConnection) async throws -> [FamilyUser] {
        let rows = try await connection.query(
            """
            WITH users AS (
                SELECT 'screen' AS kind, id::text AS id, body, position FROM screens WHERE app_id = \(appId)::uuid AND family = \(familyId)
                UNION ALL
                SELECT 'layout', id, body, position FROM layouts WHERE app_id = \(appId)::uuid AND family = \(familyId)
            )
            SELECT kind, id, body->>'name',
                   ARRAY(SELECT DISTINCT style #>> '{}'
                         FROM unnest(ARRAY[\(unescaped: Self.cellStylePaths)]::jsonpath[]) AS path,
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

    /// The JSON paths of the cell styles of components, one per depth a group may nest.
    static let cellStylePaths: String = (1...(Component.maxDepth + 1)).map { depth in
        "'$" + String(repeating: ".ui_components[*]", count: depth) + ".cell_styles[*]'"
    }.joined(separator: ", ")

    // MARK: Layouts

    public func createLayout(appId: String, body: JSONValue) async throws -> Record {
        try await client.transaction(logger: logger) { connection in
            let catalog = try await registry(appId: appId, on: connection).catalog
            let layout = try await readLayout(body, catalog: catalog, appId: appId, on: connection)
            if try await fetchIfPresent(.layouts, appId: appId, id: layout.id, on: connection, lock: .none) != nil {
                throw StoreError.conflict("a layout \(layout.id) exists already in this app", usedBy: [])
            }
            try AppCaps.refuseAtCap(
                try await number("SELECT count(*)::int FROM layouts WHERE app_id = \(appId)::uuid", on: connection),
                limit: Limits.maxLayoutsPerApp, "layouts")
            return try await returnedRecord(
                connection.query(
                    """
                    INSERT INTO layouts (app_id, id, family, body)
                    VALUES (\(appId)::uuid, \(layout.id), \(layout.family), \(layout.json.serializedString())::jsonb)
                    RETURNING revision, created_at, updated_at
                    """, logger: logger), body: layout.json)
        }
    }

    public func updateLayout(appId: String, id: String, precondition: RevisionPrecondition, transform: @escaping Transform) async throws -> Record {
        try await client.transaction(logger: logger) { connection in
            let catalog = try await registry(appId: appId, on: connection).catalog
            let current = try await fetch(.layouts, appId: appId, id: id, on: connection, lock: .update)
            try precondition.check(current.revision)
            let body = try bodyKeepingId(try transform(current.body).removingBookkeeping(), id: id)
            let layout = try await readLayout(body, catalog: catalog, appId: appId, on: connection)
            if layout.json == current.body.removingBookkeeping() { return current }
            return try await returnedRecord(
                connection.query(
                    """
                    UPDATE layouts SET family = \(layout.family), body = \(layout.json.serializedString())::jsonb,
                        revision = revision + 1, updated_at = now()
                    WHERE app_id = \(appId)::uuid AND id = \(id)
                    RETURNING revision, created_at, updated_at
                    """, logger: logger), body: layout.json)
        }
    }

    public func deleteLayout(appId: String, id: String, precondition: RevisionPrecondition) async throws {
        try await client.transaction(logger: logger) { connection in
            let current = try await fetch(.layouts, appId: appId, id: id, on: connection, lock: .update)
            try precondition.check(current.revision)
            try await connection.query("DELETE FROM layouts WHERE app_id = \(appId)::uuid AND id = \(id)", logger: logger)
        }
    }

    /// Reads a layout body and checks its family and cell styles, reporting all problems at once.
    func readLayout(_ body: JSONValue, catalog: ComponentCatalog, appId: String, on connection: PostgresConnection) async throws -> LayoutTemplate {
        let problems = Problems()
        let layout = LayoutTemplate.read(body, catalog: catalog, problems: problems)
        var errors = problems.errors
        let json = layout?.json ?? body
        if let familyId = json["family"]?.stringValue, !familyId.isEmpty, !errors.contains(where: { $0.pointer == "/family" }) {
            let family = try await loadFamily(appId, id: familyId, on: connection)
            errors += References.checkCellStyles(json: json["ui_components"], family: family, familyId: familyId)
        }
        guard let layout, errors.isEmpty else { throw StoreError.invalid(errors) }
        return layout
    }

    // MARK: Shared

    /// Reads the `RETURNING revision, created_at, updated_at` of an insert or update.
    func returnedRecord(_ rows: PostgresRowSequence, body: JSONValue) async throws -> Record {
        for try await (revision, created, updated) in rows.decode((Int, Date, Date).self) {
            return Record(body: body, revision: revision, createdAt: created, updatedAt: updated)
        }
        throw StoreError.notFound("the row vanished during the write")
    }

}
