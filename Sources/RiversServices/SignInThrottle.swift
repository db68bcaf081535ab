import Foundation
import RiversStore

/// How sign-in attempts are held back. Nobody is locked out: past a free allowance, each
/// attempt must wait a delay after the one before, doubling with each attempt (per address,
/// per account), so guessing slows to a crawl while the owner waits seconds at most.
/// - failures per account: 5 free, then 4 s, 8 s, … up to 60 s; not from an address the account
///   signed in from lately (someone failing on purpose elsewhere cannot hold the owner back);
/// - every attempt (success or not) per account: `accountBurst` free, then the same;
/// - every attempt from one address: `addressBurst` free, then 4 s doubling up to 15 minutes.
/// Counted over `window` (15 minutes), across every server process (the counts are in PostgreSQL).
public struct SignInThrottle: Sendable {
    public static let window: TimeInterval = 15 * 60
    public static let failuresPerAccount = 5
    public static let firstDelay: Double = 4
    public static let accountDelayCap: Double = 60
    public static let addressDelayCap: Double = 15 * 60

    /// Attempts per account within the window before delays.
    public var accountBurst = 30
    /// Attempts from one address within the window before delays (`SIGN_IN_ADDRESS_BURST`).
    public var addressBurst = 100

    public init(accountBurst: Int = 30, addressBurst: Int = 100) {
        self.accountBurst = accountBurst
        self.addressBurst = addressBurst
    }

    public struct Keys {
        public var accountFailures: String
        public var accountAttempts: String
        public var addressAttempts: String
        public var all: [String] { [accountFailures, accountAttempts, addressAttempts] }
        /// What a success takes back.
        public var failures: [String] { [accountFailures] }
    }

    public static func keys(email: String, address: String) -> Keys {
        Keys(accountFailures: "account:\(email)", accountAttempts: "attempts-account:\(email)", addressAttempts: "attempts-address:\(address)")
    }

    /// The delay required after the previous attempt when `count` attempts (this one included)
    /// were made and `free` are allowed without one.
    public static func delay(count: Int, free: Int, cap: Double) -> Double? {
        guard count > free else { return nil }
        let doublings = min(count - free - 1, 30)
        return min(cap, firstDelay * Double(1 << doublings))
    }

    /// Seconds to wait before trying again, or nil when this attempt may go ahead.
    public func wait(counts: [String: SignInAttemptCount], keys: Keys, knownAddress: Bool, now: Date) -> Int? {
        var rules: [(String, Int, Double)] = [(keys.addressAttempts, addressBurst, Self.addressDelayCap)]
        if !knownAddress {
            rules.append((keys.accountFailures, Self.failuresPerAccount, Self.accountDelayCap))
            rules.append((keys.accountAttempts, accountBurst, Self.accountDelayCap))
        }
        var longest: Double = 0
        for (key, free, cap) in rules {
            guard let counted = counts[key], let delay = Self.delay(count: counted.count, free: free, cap: cap) else { continue }
            let since = counted.previous.map { now.timeIntervalSince($0) } ?? .infinity
            if since < delay { longest = max(longest, delay - since) }
        }
        return longest > 0 ? max(1, Int(longest.rounded(.up))) : nil
    }
}
