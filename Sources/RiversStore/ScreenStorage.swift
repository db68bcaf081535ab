import Foundation
import RiversCore

/// Where screens are kept, for the screen use cases (`ScreenService` in RiversServices): the
/// service decides what a create, a change or a removal does; a storage only reads and writes.
/// `Store` carries each call out in SQL on one transaction; `InMemoryContent` on a copy of
/// the app it commits only when the work returns.
public protocol ScreenStorage: Sendable {
    /// Runs `work` as one transaction over the app `appId`, its row locked (writes that must see
    /// the whole app consistently, as the home flag, parents and `screen_type` numbers do, run one
    /// after another per app). Nothing `work` wrote is kept if it throws. 404 for an unknown app.
    func withScreens<T: Sendable>(appId: String, _ work: @escaping @Sendable (any ScreenTransaction) async throws -> T) async throws -> T
}

/// The screens of one app inside one transaction.
public protocol ScreenTransaction: AnyObject {
    /// The number the next created screen's `screen_type` is made from.
    var nextScreenNumber: Int { get }
    /// The app's plugins, with every version of each.
    func registry() async throws -> PluginRegistry
    /// Every screen of the app with its parent.
    func screenParents() async throws -> [String: String?]
    /// A layout's body (share-locked), or nil.
    func layout(id: String) async throws -> JSONValue?
    /// The screen `id` typed, locked for update, with its revision; 404 when there is none.
    func currentScreen(id: String, registry: PluginRegistry) async throws -> (screen: Screen, revision: Int)
    /// The family `id`, share-locked (a family change that would drop a cell style waits for this
    /// transaction).
    func family(id: String) async throws -> SavedScreen.FamilyLookup
    /// The screen `id`'s revision and home flag, its row locked for update; nil when there is none.
    func lockScreen(id: String) async throws -> (revision: Int, home: Bool)?
    /// The screen `id` as a GET answers it, or nil.
    func screenText(id: String) async throws -> RecordText?
    /// Stores a new screen and moves `nextScreenNumber` on; answers with what a GET gives.
    /// `options` are what it was read with (a storage may keep the typed screen with them).
    func insert(_ screen: Screen, options: Screen.ReadOptions) async throws -> RecordText
    /// Stores a changed screen at the next revision; answers with what a GET gives.
    func update(_ screen: Screen, options: Screen.ReadOptions) async throws -> RecordText
    /// Takes the home flag from every screen but `id` (their revisions move on).
    func clearHome(except id: String) async throws
    /// The screens whose `parent` or `targets` name `id`.
    func linksTo(screen id: String) async throws -> [ResourceUse]
    /// Removes the screen `id`.
    func delete(screen id: String) async throws
    /// Makes the first screen (in the app's order) home, if there is one.
    func makeFirstScreenHome() async throws
    /// The stored sizes, after a write, of the screen `id` and of the app's screens and families.
    func storedBytes(screen id: String) async throws -> (screen: Int, app: Int)
}

/// The caps on what an app keeps. The sizes are checked in the transaction of a write, after it
/// (it rolls back when they are broken).
public enum AppCaps {
    /// 422 when the app's screens and families together take more than `Limits.maxAppBytes`.
    public static func checkAppBytes(_ bytes: Int) throws {
        try refuseAll(bytes, limit: Limits.maxAppBytes, "the app's screens and families")
    }

    /// 422 when one screen takes more than `Limits.maxScreenBytes`.
    public static func checkScreenBytes(_ bytes: Int) throws {
        try refuseOne(bytes, limit: Limits.maxScreenBytes, "a screen", hint: " (large free-form members?)")
    }

    /// 422 when a layout, or the app's layouts together, take more than their caps.
    public static func checkLayoutBytes(_ bytes: (layout: Int, all: Int)) throws {
        try refuseOne(bytes.layout, limit: Limits.maxLayoutBytes, "a layout")
        try refuseAll(bytes.all, limit: Limits.maxLayoutsBytesPerApp, "the app's layouts")
    }

    /// 422 when a plugin manifest, or every version of every plugin of the app together, take
    /// more than their caps.
    public static func checkManifestBytes(_ bytes: (manifest: Int, all: Int)) throws {
        try refuseOne(bytes.manifest, limit: Limits.maxManifestBytes, "a plugin manifest")
        try refuseAll(bytes.all, limit: Limits.maxManifestBytesPerApp, "the manifests of the app's plugins (every version of each)")
    }

    /// 422 when one thing (`what`: "a screen") takes more than `limit` bytes as stored.
    private static func refuseOne(_ bytes: Int, limit: Int, _ what: String, hint: String = "") throws {
        if bytes > limit {
            throw StoreError.invalid([FieldError("", "\(what) takes at most \(limit / 1024) KB as stored; this one would take \(bytes / 1024) KB\(hint)")])
        }
    }

    /// 422 when all of something of one app (`what`: "the app's layouts") take more than `limit` bytes as stored.
    private static func refuseAll(_ bytes: Int, limit: Int, _ what: String) throws {
        if bytes > limit {
            throw StoreError.invalid([FieldError(
                "", "\(what) would take \(bytes / 1024) KB as stored, over the limit of \(limit / 1024) KB for one app: make them smaller or remove some")])
        }
    }

    /// 409 when an app already has `limit` of something (a per-app cap, Limits).
    public static func refuseAtCap(_ count: Int, limit: Int, _ what: String) throws {
        if count >= limit {
            throw StoreError.conflict("this app has \(limit) \(what) already, the most one app may have: remove some first", usedBy: [])
        }
    }
}
