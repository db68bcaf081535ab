import Foundation
import RiversCore

/// Where families and layouts are kept, for their use cases (`FamilyService` and `LayoutService`
/// in RiversServices): the services decide what a write does; a storage only reads and writes.
/// `Store` carries each call out in SQL on one transaction; `InMemoryContent` on a copy of the
/// app it commits only when the work returns.
public protocol FamilyStorage: Sendable {
    /// Runs `work` as one transaction over the families and layouts of the app `appId`, its row
    /// locked (as for screens and plugins: an app's content writes run one after another, always
    /// taking the app first). Nothing `work` wrote is kept if it throws.
    func withFamilies<T: Sendable>(appId: String, _ work: @escaping @Sendable (any FamilyTransaction) async throws -> T) async throws -> T
}

/// The families and layouts of one app inside one transaction. A `table` here is `.families`
/// or `.layouts` (screens are written through `ScreenTransaction`).
public protocol FamilyTransaction: AnyObject {
    /// The app's plugins (a layout's components are read against its catalog).
    func registry() async throws -> PluginRegistry
    /// The family or layout `id` as stored (its body), locked for update; nil when there is none.
    func stored(_ table: DocumentTable, id: String) async throws -> Record?
    /// Whether the app has a family or layout `id`.
    func exists(_ table: DocumentTable, id: String) async throws -> Bool
    func count(_ table: DocumentTable) async throws -> Int
    func delete(_ table: DocumentTable, id: String) async throws

    /// Stores a new family; 409 when one by its id was stored meanwhile.
    func insert(_ family: Family) async throws -> Record
    /// Stores a changed family at the next revision.
    func update(_ family: Family) async throws -> Record
    func insert(_ layout: LayoutTemplate) async throws -> Record
    func update(_ layout: LayoutTemplate) async throws -> Record

    /// Screens and layouts on the family `id`, with the cell styles their components name (at
    /// every depth a group may nest), screens first, each in the app's order.
    func users(ofFamily id: String) async throws -> [FamilyUser]
    /// The family `id` to check a layout's cell styles against, share-locked; nil when there is
    /// none or it no longer reads.
    func familyToCheck(id: String) async throws -> Family?
    /// The stored size, after a write, of the app's screens and families together.
    func storedAppBytes() async throws -> Int
    /// The stored size, after a write, of the layout `id` and of the app's layouts together.
    func storedLayoutBytes(id: String) async throws -> (layout: Int, all: Int)
}

/// A screen or layout on a family, with the cell styles its components name.
public struct FamilyUser: Sendable, Equatable {
    public var kind: ResourceUse.Kind
    public var id: String
    public var name: String
    public var cellStyles: Set<String>

    public init(kind: ResourceUse.Kind, id: String, name: String, cellStyles: Set<String>) {
        self.kind = kind
        self.id = id
        self.name = name
        self.cellStyles = cellStyles
    }
}
