import Foundation
import NIOConcurrencyHelpers
import RiversCore

/// Apps' events in memory: an `AppEventRepository` without PostgreSQL, for the fast tier's tests
/// of the live stream's routes. On PostgreSQL the events are the audit log's entries and presence
/// is a NOTIFY every process hears; here a test adds the entries, and what was announced is kept
/// for it to read.
public final class InMemoryAppEvents: AppEventRepository {
    private struct State {
        /// Each app's entries, oldest first, with the acting person's name.
        var entries: [String: [(entry: AuditEntry, actorName: String)]] = [:]
        /// Ids grow across apps, as the audit log's do.
        var lastId = 0
        var announced: [String] = []
    }

    private let state = NIOLockedValueBox(State())

    public init() {}

    /// Adds an entry to the app's log (its id the next one) and returns it.
    @discardableResult
    public func add(
        appId: String, kind: String, resourceId: String, action: String, actor: String = "token test", actorKind: String = "token",
        summary: String = "", revisionBefore: Int? = nil, revisionAfter: Int? = nil, actorName: String = ""
    ) -> AuditEntry {
        state.withLockedValue { state in
            state.lastId += 1
            let entry = AuditEntry(
                id: state.lastId, at: Date(), actor: actor, actorKind: actorKind, kind: kind, resourceId: resourceId, action: action,
                revisionBefore: revisionBefore, revisionAfter: revisionAfter, summary: summary, requestId: "", address: "")
            state.entries[appId, default: []].append((entry, actorName))
            return entry
        }
    }

    /// Every presence payload announced, in order.
    public var announced: [String] { state.withLockedValue { $0.announced } }

    public func appEvents(appId: String, after id: Int, limit: Int) async throws -> [(entry: AuditEntry, actorName: String)] {
        state.withLockedValue { state in Array((state.entries[appId] ?? []).filter { $0.entry.id > id }.prefix(max(0, limit))) }
    }

    public func lastAppEvent(appId: String) async throws -> Int {
        state.withLockedValue { $0.entries[appId]?.last?.entry.id ?? 0 }
    }

    public func announcePresence(_ payload: String) async throws {
        state.withLockedValue { $0.announced.append(payload) }
    }
}
