import Logging
import NIOConcurrencyHelpers

/// Lets a warning through once per key every `interval`: news that repeats on every attempt (a
/// secret this process cannot open, on every delivery of the app's webhooks until the key is set
/// right; a background loop failing every second) would otherwise fill the log with nothing
/// else. Bounded: past 10,000 keys it starts again empty.
final class WarningGate: Sendable {
    private let said = NIOLockedValueBox<[String: ContinuousClock.Instant]>([:])
    let interval: Duration
    static let maxKeys = 10_000

    init(interval: Duration) { self.interval = interval }

    func allows(_ key: String, now: ContinuousClock.Instant = .now) -> Bool {
        said.withLockedValue { said in
            if let last = said[key], now - last < interval { return false }
            if said.count >= Self.maxKeys { said.removeAll() }
            said[key] = now
            return true
        }
    }

    /// A failure that repeats: `message` at warning when `key` allows it, else at debug.
    func say(_ key: String, _ message: @autoclosure () -> String, to logger: Logger) {
        if allows(key) { logger.warning("\(message()) (said again in 10 minutes at most while it keeps failing)") }
        else { logger.debug("\(message())") }
    }
}
