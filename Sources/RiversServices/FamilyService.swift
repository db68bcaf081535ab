import Foundation
import RiversCore
import RiversStore

/// The use cases of families: create, change (replacement or merge patch) and remove, each one
/// transaction over a `FamilyStorage`. A family's cell styles that screens or layouts still use
/// must stay, and a family in use cannot go.
public struct FamilyService: Sendable {
    let storage: any FamilyStorage

    public init(storage: any FamilyStorage) { self.storage = storage }

    public func create(appId: String, body: JSONValue) async throws -> Record {
        let family = try readOrRefuse { Family.read(body, problems: $0) }
        return try await storage.withFamilies(appId: appId) { tx in
            if try await tx.exists(.families, id: family.id) {
                throw StoreError.conflict("a family \(family.id) exists already in this app", usedBy: [])
            }
            try AppCaps.refuseAtCap(try await tx.count(.families), limit: Limits.maxFamiliesPerApp, "families")
            let record = try await tx.insert(family)
            try AppCaps.checkAppBytes(try await tx.storedAppBytes())
            return record
        }
    }

    /// Changes a family as `edit` asks. A merge patch is applied to the typed family (what it
    /// leaves out is not made JSON again), read and checked as the whole body it stands for; a
    /// stored family that no longer reads (the rules became stricter) takes it onto its JSON.
    public func update(appId: String, id: String, precondition: RevisionPrecondition, edit: ResourceEdit) async throws -> Record {
        try await storage.withFamilies(appId: appId) { tx in
            guard let current = try await tx.stored(.families, id: id) else { throw StoreError.notFound("no family \(id) in this app") }
            try precondition.check(current.revision)
            let stored = Family.read(current.body, problems: Problems())
            let family: Family
            switch (edit, stored) {
            case (.mergePatch(let patch), let base?):
                family = try readOrRefuse { Family.read(mergePatch: patch, onto: base, problems: $0) }
            default:
                let body = try bodyKeepingId(try edit.transform(current.body).removingBookkeeping(), id: id)
                family = try readOrRefuse { Family.read(body, problems: $0) }
            }
            // Nothing changed: nothing is written, and the revision stays. (The stored form also
            // holds each cell style's `computed` size, which a change of the layout engine may
            // move: a write that changes nothing else refreshes it.)
            if family == stored, family.json == current.body.removingBookkeeping() { return current }
            // Cell styles that screens or layouts still use must stay.
            let styles = Set(family.cellStyles.map(\.id))
            var users: [ResourceUse] = []
            var missing: Set<String> = []
            for user in try await tx.users(ofFamily: id) {
                let lost = user.cellStyles.subtracting(styles)
                if !lost.isEmpty {
                    missing.formUnion(lost)
                    users.append(ResourceUse(kind: user.kind, id: user.id, name: user.name, cellStyles: lost.sorted()))
                }
            }
            if !users.isEmpty {
                throw StoreError.conflict("cell styles \(missing.sorted().listed()) are still used; change those components first", usedBy: users)
            }
            let record = try await tx.update(family)
            try AppCaps.checkAppBytes(try await tx.storedAppBytes())
            return record
        }
    }

    public func delete(appId: String, id: String, precondition: RevisionPrecondition) async throws {
        try await storage.withFamilies(appId: appId) { tx in
            guard let current = try await tx.stored(.families, id: id) else { throw StoreError.notFound("no family \(id) in this app") }
            try precondition.check(current.revision)
            let users = try await tx.users(ofFamily: id)
            if !users.isEmpty {
                throw StoreError.conflict(
                    "family \(id) is used by \(users.count) screen(s) or layout(s)", usedBy: users.map { ResourceUse(kind: $0.kind, id: $0.id, name: $0.name) })
            }
            try await tx.delete(.families, id: id)
        }
    }
}

/// The use cases of layouts, the templates a new screen starts from: create, change and remove,
/// each one transaction. A layout's components are read against the app's catalog and their cell
/// styles checked against its family.
public struct LayoutService: Sendable {
    let storage: any FamilyStorage

    public init(storage: any FamilyStorage) { self.storage = storage }

    public func create(appId: String, body: JSONValue) async throws -> Record {
        try await storage.withFamilies(appId: appId) { tx in
            let layout = try await Self.read(.body(body), catalog: try await tx.registry().catalog, in: tx)
            if try await tx.exists(.layouts, id: layout.id) {
                throw StoreError.conflict("a layout \(layout.id) exists already in this app", usedBy: [])
            }
            try AppCaps.refuseAtCap(try await tx.count(.layouts), limit: Limits.maxLayoutsPerApp, "layouts")
            let record = try await tx.insert(layout)
            try AppCaps.checkLayoutBytes(try await tx.storedLayoutBytes(id: layout.id))
            return record
        }
    }

    /// Changes a layout as `edit` asks. A merge patch is applied to the typed layout (its kept
    /// components are not made JSON again), as a family's and a screen's are; a stored layout
    /// that no longer reads takes it onto its JSON.
    public func update(appId: String, id: String, precondition: RevisionPrecondition, edit: ResourceEdit) async throws -> Record {
        try await storage.withFamilies(appId: appId) { tx in
            guard let current = try await tx.stored(.layouts, id: id) else { throw StoreError.notFound("no layout \(id) in this app") }
            try precondition.check(current.revision)
            let catalog = try await tx.registry().catalog
            let stored = LayoutTemplate.read(current.body, catalog: catalog, problems: Problems())
            let layout: LayoutTemplate
            switch (edit, stored) {
            case (.mergePatch(let patch), let base?):
                layout = try await Self.read(.mergePatch(patch, onto: base), catalog: catalog, in: tx)
            default:
                let body = try bodyKeepingId(try edit.transform(current.body).removingBookkeeping(), id: id)
                layout = try await Self.read(.body(body), catalog: catalog, in: tx)
            }
            // Nothing changed: nothing is written, and the revision stays.
            if layout == stored { return current }
            let record = try await tx.update(layout)
            try AppCaps.checkLayoutBytes(try await tx.storedLayoutBytes(id: layout.id))
            return record
        }
    }

    public func delete(appId: String, id: String, precondition: RevisionPrecondition) async throws {
        try await storage.withFamilies(appId: appId) { tx in
            guard let current = try await tx.stored(.layouts, id: id) else { throw StoreError.notFound("no layout \(id) in this app") }
            try precondition.check(current.revision)
            try await tx.delete(.layouts, id: id)
        }
    }

    /// What a write reads its layout from.
    enum LayoutSource {
        /// A whole body (a create, a PUT).
        case body(JSONValue)
        /// A merge patch onto the current layout.
        case mergePatch(JSONValue, onto: LayoutTemplate)
    }

    /// Reads a layout and checks its family and cell styles, reporting all problems at once: on
    /// the typed layout, or, when it does not read, on the body as sent (a patch merged onto the
    /// layout's JSON, made for this only).
    static func read(_ source: LayoutSource, catalog: ComponentCatalog, in tx: any FamilyTransaction) async throws -> LayoutTemplate {
        let problems = Problems()
        let layout: LayoutTemplate?
        switch source {
        case .body(let body): layout = LayoutTemplate.read(body, catalog: catalog, problems: problems)
        case .mergePatch(let patch, let base): layout = LayoutTemplate.read(mergePatch: patch, onto: base, catalog: catalog, problems: problems)
        }
        var errors = problems.errors
        if let layout {
            errors += References.checkCellStyles(layout.uiComponents, family: try await tx.familyToCheck(id: layout.family), familyId: layout.family)
        } else if case .mergePatch = source, errors.contains(where: { $0.pointer == "/id" }) {
            // A patch that would change the id is refused for that alone (as a replacing body is).
        } else {
            let json: JSONValue
            switch source {
            case .body(let body): json = body
            case .mergePatch(let patch, let base): json = base.json.mergePatched(with: patch)
            }
            if let familyId = json["family"]?.stringValue, !familyId.isEmpty, !errors.contains(where: { $0.pointer == "/family" }) {
                errors += References.checkCellStyles(json: json["ui_components"], family: try await tx.familyToCheck(id: familyId), familyId: familyId)
            }
        }
        guard let layout, errors.isEmpty else { throw StoreError.invalid(errors) }
        return layout
    }
}

/// The value `read` makes, or 422 with every problem it found.
func readOrRefuse<T>(_ read: (Problems) -> T?) throws -> T {
    let problems = Problems()
    guard let value = read(problems), problems.isEmpty else { throw StoreError.invalid(problems.errors) }
    return value
}
