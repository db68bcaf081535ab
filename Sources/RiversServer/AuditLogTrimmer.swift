import Logging
import RiversStore
import ServiceLifecycle

/// Removes audit log entries older than `AUDIT_LOG_DAYS` (when it is set): at start and then every
/// hour, in batches of `batch` entries, each its own short transaction with a pause between them,
/// so a first trim of a long log never holds the database for long. Every process trims (one
/// waits for the rows another is removing, then finds them gone).
struct AuditLogTrimmer: Service {
    let store: Store
    let days: Int
    let logger: Logger
    var interval: Duration = .seconds(3600)
    var batch = 10_000

    func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await trimForever() }
            try? await gracefulShutdown()
            group.cancelAll()
        }
    }

    func trimForever() async {
        while !Task.isCancelled {
            do {
                let removed = try await trim()
                if removed > 0 { logger.info("removed \(removed) audit log entries older than \(days) days (AUDIT_LOG_DAYS)") }
            } catch {
                if Task.isCancelled || Task.isShuttingDownGracefully { return }
                logger.warning("trimming the audit log failed; trying again in an hour: \(String(reflecting: error))")
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// Removes every entry past the retention, a batch at a time; how many went.
    func trim() async throws -> Int {
        var removed = 0
        while !Task.isCancelled {
            let n = try await store.trimAuditLog(olderThanDays: days, batch: batch)
            removed += n
            // Until the first entries are all within the retention (not merely until a batch
            // is short: a few entries written out of time order must not stop the trim).
            if n == 0 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        return removed
    }
}
