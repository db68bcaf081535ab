import Foundation
import RiversCore

// One protocol per aggregate, as in Hummingbird's todos-postgres-tutorial: the HTTP controllers
// and the services (RiversServices) depend on these, not on PostgreSQL. `Store` implements every
// one of them on PostgreSQL; each write is one transaction there. Screens are written through
// `ScreenStorage` (ScreenStorage.swift), whose use cases are `ScreenService`'s.

/// Apps as read (they are written through `AppStorage`, whose use cases are `AppService`'s; their
/// tokens through `TeamStorage`, `TeamService`'s).
public protocol AppRepository: Sendable {
    func findApp(_ idOrSlug: String) async throws -> App?
    func findApp(slug: String) async throws -> App?
    func app(id: String) async throws -> App
}

/// Who is calling: what the API's authentication and app access read on every request.
public protocol CallerRepository: Sendable {
    /// The app a token belongs to, with the token; nil for an unknown or expired token.
    func tokenOwner(_ token: String) async throws -> (app: App, token: TokenInfo)?
    /// The signed-in person of a session cookie's secret; nil for an unknown or ended session.
    func session(secret: String) async throws -> SignedInSession?
    /// Whether session `id` is still alive (not signed out, not ended by a new password, used
    /// within its idle lifetime); its use is not recorded. An open live stream asks at every
    /// heartbeat: ending a session ends its streams too.
    func sessionIsAlive(id: String) async throws -> Bool
    /// An app by id or slug and a person's role in it (nil role: not a member); nil for no app.
    func appAndRole(_ idOrSlug: String, userId: String) async throws -> (app: App, role: Role?)?
}

/// A resource of any document table read as its stored text (a GET's answer without parsing).
public protocol RecordTextRepository: Sendable {
    func recordText(_ table: DocumentTable, appId: String, id: String) async throws -> RecordText
    /// A page of a table as stored text (a list answers without parsing a body).
    func listText(_ table: DocumentTable, appId: String, limit: Int, offset: Int) async throws -> TextPage
}

/// Saved screens parsed for their previews.
public protocol SavedScreenRepository: Sendable {
    func savedScreen(appId: String, id: String) async throws -> SavedScreen
}

/// Families read whole (a family's preview). Families and layouts are written through
/// `FamilyStorage` (FamilyStorage.swift), whose use cases are `FamilyService`'s and `LayoutService`'s.
public protocol FamilyRepository: Sendable {
    func family(appId: String, id: String) async throws -> Record
}

/// Plugin manifests, every version of each, and the registry that follows from them, as read.
/// They are written through `PluginStorage` (PluginStorage.swift), whose use cases are `PluginService`'s.
public protocol PluginRepository: Sendable {
    func registry(appId: String) async throws -> PluginRegistry
    func listPlugins(appId: String, limit: Int, offset: Int) async throws -> Page<StoredPlugin>
    func plugin(appId: String, identifier: String) async throws -> StoredPlugin
    func pluginManifest(appId: String, identifier: String, version: String?) async throws -> PluginManifest
}

/// What the public URLs read: the published index and documents, never a draft. Apart from
/// `VersionRepository` so that the public path can run on an in-memory source
/// (`InMemoryPublishedVersions`) in the fast tier's tests.
public protocol PublishedDocumentSource: Sendable {
    func publishedIndex() async throws -> [PublishedIndexEntry]
    func publishedIndexEntry(slug: String) async throws -> PublishedIndexEntry?
    func currentDocument(slug: String) async throws -> PublishedVersion?
    func document(slug: String, number: Int) async throws -> PublishedVersion?
}

/// Published versions as read: the publish check, the draft, the versions, and (as a
/// `PublishedDocumentSource`) what the public URLs serve. Publishing and rollback write through
/// `VersionStorage` (`PublishService`), an import through `ContentStorage` (`ImportService`).
public protocol VersionRepository: PublishedDocumentSource {
    func problems(appId: String) async throws -> PublishReport
    func draftDocument(appId: String) async throws -> DocumentFragments
    /// The draft checked like a publish: its problems, and its bytes when there are none.
    func checkedDraft(appId: String) async throws -> (problems: [FieldError], document: [UInt8]?)
    func version(appId: String, number: Int) async throws -> PublishedVersion
    func currentVersion(appId: String) async throws -> PublishedVersion?
    func listVersions(appId: String, limit: Int, offset: Int) async throws -> (versions: [PublishedVersion], total: Int)
}

extension Store: AppRepository, CallerRepository, RecordTextRepository, SavedScreenRepository, FamilyRepository, PluginRepository, VersionRepository {}
