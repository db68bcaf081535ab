import Foundation
import RiversCore
import RiversStore

/// The publishing use cases: publish the draft as the next version, and roll back to an earlier
/// version's document, each one transaction over a `VersionStorage` (publishes of an app queue on
/// its row and get consecutive numbers).
public struct PublishService: Sendable {
    let storage: any VersionStorage

    public init(storage: any VersionStorage) { self.storage = storage }

    /// Checks the whole app and stores its document as the next version, unless it is the same as
    /// the current one. `channel` (production unless said) is pointed at the result; a document
    /// the newest version already holds is not stored again (publishing it to another channel
    /// only moves that one).
    public func publish(appId: String, note: String, publishedBy: String, channel: String = ChannelName.production) async throws -> PublishOutcome {
        try await storage.withVersions(appId: appId) { tx in
            // The channel's row is read once, locked, and handed on to the move.
            let current = try await tx.channel(channel)
            if channel != ChannelName.production, current == nil {
                throw StoreError.invalid([FieldError("/channel", "this app has no channel \(channel.prefix(40)): make it first")])
            }
            let draft = try await tx.draft()
            let problems = PublishCheck.problems(screens: draft.screens, families: draft.families, registry: draft.registry)
            if !problems.isEmpty { throw StoreError.invalid(problems) }
            return try await Self.store(
                draft.document(), appId: appId, note: note, publishedBy: publishedBy, rollbackOf: nil, channel: channel, current: current, in: tx)
        }
    }

    /// Publishes version `number`'s document again as a new version; production switches to it in
    /// the same transaction.
    public func rollback(appId: String, to number: Int, publishedBy: String, note: String) async throws -> PublishOutcome {
        try await storage.withVersions(appId: appId) { tx in
            guard let old = try await tx.version(number: number) else { throw StoreError.notFound("no version \(number) of this app") }
            return try await Self.store(
                old.document, appId: appId, note: note.isEmpty ? "rollback to version \(number)" : note, publishedBy: publishedBy,
                rollbackOf: number, channel: ChannelName.production, current: try await tx.channel(ChannelName.production), in: tx)
        }
    }

    static func store(
        _ bytes: [UInt8], appId: String, note: String, publishedBy: String, rollbackOf: Int?, channel: String, current: Channel?,
        in tx: any VersionTransaction
    ) async throws -> PublishOutcome {
        let sha = sha256Hex(bytes)
        // The channel shows these bytes already: nothing to do.
        if let current, try await tx.sha256(ofVersion: current.version) == sha, let shown = try await tx.version(number: current.version) {
            return .unchanged(shown)
        }
        // The newest version holds these bytes already (published to another channel): the
        // channel moves to it and no version is added. A rollback always adds one.
        let newest = try await tx.newestVersion()
        if rollbackOf == nil, let newest, newest.sha256 == sha, var existing = try await tx.version(number: newest.number) {
            _ = try await ReleaseService.move(
                channel, from: current, to: existing.number, precondition: .none, movedBy: publishedBy, note: note, cause: .publish, withNewVersion: false, in: tx)
            existing.appId = appId
            return .published(existing)
        }
        let next = (newest?.number ?? 0) + 1
        try AppCaps.refuseAtCap(next - 1, limit: Limits.maxVersionsPerApp, "published versions")
        var version = PublishedVersion(
            appId: appId, number: next, sha256: sha, document: bytes, gzip: Gzip.compress(bytes), publishedBy: publishedBy, note: note,
            rollbackOf: rollbackOf, createdAt: Date())
        version.createdAt = try await tx.insert(version)
        _ = try await ReleaseService.move(
            channel, from: current, to: next, precondition: .none, movedBy: publishedBy, note: note, cause: rollbackOf == nil ? .publish : .rollback,
            withNewVersion: true, in: tx)
        return .published(version)
    }
}
