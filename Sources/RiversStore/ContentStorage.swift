import Foundation
import RiversCore

/// All of an app's content in one transaction: what a use case that writes screens, families and
/// plugins together runs on (`ImportService`: a document's screens, the families they name, the
/// navigation plugins they lack, all or nothing).
public protocol ContentStorage: ScreenStorage, FamilyStorage, PluginStorage {
    /// Runs `work` as one transaction over the app `appId`, its row locked. Nothing `work` wrote
    /// is kept if it throws. 404 for an unknown app.
    func withContent<T: Sendable>(appId: String, _ work: @escaping @Sendable (any ContentTransaction) async throws -> T) async throws -> T
}

/// The screens, families and plugins of one app inside one transaction, and what an import
/// needs besides.
public protocol ContentTransaction: ScreenTransaction, FamilyTransaction, PluginTransaction {
    /// Removes every screen of the app (a draft replaced whole).
    func deleteAllScreens() async throws
    /// The `screen_type` of every screen of the app.
    func screenTypes() async throws -> Set<String>
    /// Whether a screen of the app is home.
    func hasHome() async throws -> Bool
    /// Stores a screen as it comes from a document, with its `screen_type` and home flag as they
    /// are, and `parent` (nil while its parent is not stored yet); answers with its API form.
    func insertImported(_ screen: Screen, parent: String?) async throws -> Record
    /// Sets a stored screen's parent (the second pass for screens in a cycle of parents).
    func setParent(of screen: String, to parent: String) async throws
    /// Sets the number the next generated `screen_type` is made from.
    func setNextScreenNumber(_ number: Int) async throws
    /// The largest stored size of the screens `ids`.
    func largestStoredBytes(screens ids: [String]) async throws -> Int
    /// One entry in the app's audit log for the whole of a change (beside those of each row).
    func audit(kind: String, resourceId: String, action: String, summary: String) async throws
}
