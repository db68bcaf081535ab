import Crypto
import Foundation
import RiversCore
import RiversStore

/// Webhook secrets at rest (`WEBHOOK_SECRET_KEY`). Signing needs the secret itself, so it cannot
/// be hashed: with a key it is sealed (AES-256-GCM) and bound to its app (a sealed secret copied
/// into another app's row does not open), so that a copy of the database cannot sign webhooks.
/// A sealed secret names the key that sealed it (`sealed1:<key id>:<box>`, the id a hash of the
/// key), so the key can be changed: with the old one as `WEBHOOK_SECRET_KEY_PREVIOUS`, secrets
/// sealed with it still open, and `rivers webhook seal-secrets` seals them again with the new one.
/// Without a key secrets are stored as they are; one stored so (before the key was set) still
/// opens as it is.
public struct WebhookSecretSeal: Sendable {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// A setting is not the base64 of 32 bytes.
        case badKey
        /// A sealed secret and no key to open it.
        case noKey
        /// Sealed under a key this process does not have, for another app, or damaged.
        case cannotOpen

        public var description: String {
            switch self {
            case .badKey: "WEBHOOK_SECRET_KEY and WEBHOOK_SECRET_KEY_PREVIOUS must each be the base64 of 32 random bytes (e.g. `openssl rand -base64 32`)"
            case .noKey: "the webhook's secret is sealed and WEBHOOK_SECRET_KEY is not set"
            case .cannotOpen: "the webhook's secret does not open with WEBHOOK_SECRET_KEY or WEBHOOK_SECRET_KEY_PREVIOUS (another key, or damaged)"
            }
        }
    }

    /// A key and its id (the first 8 bytes of its SHA-256, in hex: names it, does not reveal it).
    struct Key: Sendable {
        let key: SymmetricKey
        let id: String

        init(base64 text: String) throws(Failure) {
            guard let bytes = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)), bytes.count == 32 else { throw .badKey }
            key = SymmetricKey(data: bytes)
            id = String(sha256Hex(Array(bytes)).prefix(16))
        }
    }

    /// What every sealed secret starts with.
    static let prefix = "sealed1:"
    /// Seals; opens too.
    let current: Key?
    /// Opens only (the key before a change of key).
    let previous: Key?

    /// No key: secrets are stored as they are.
    public static let none = WebhookSecretSeal(current: nil, previous: nil)

    init(current: Key?, previous: Key?) {
        self.current = current
        self.previous = previous
    }

    /// The keys from the settings' texts: each the base64 of 32 bytes.
    public init(base64 text: String, previous: String? = nil) throws(Failure) {
        current = try Key(base64: text)
        self.previous = try previous.map { text throws(Failure) in try Key(base64: text) }
    }

    public var seals: Bool { current != nil }

    /// What a secret sealed with the current key starts with ("" without a key).
    public var currentPrefix: String { current.map { Self.prefix + $0.id + ":" } ?? "" }

    /// Whether `stored` is a sealed secret (with any key).
    public static func isSealed(_ stored: String) -> Bool { stored.hasPrefix(prefix) }

    /// Whether this process opens what the key with this id (as a sealed secret names it) sealed.
    public func opens(keyId: String) -> Bool { key(id: keyId) != nil }

    /// The key with this id, current or previous.
    func key(id: some StringProtocol) -> Key? { [current, previous].compactMap { $0 }.first { $0.id == id } }

    /// What to store for `secret` of a webhook of `appId`.
    public func seal(_ secret: String, appId: String) throws -> String {
        guard let current else { return secret }
        let box = try AES.GCM.seal(Data(secret.utf8), using: current.key, authenticating: Self.binding(appId))
        guard let combined = box.combined else { throw Failure.cannotOpen }
        return currentPrefix + combined.base64EncodedString()
    }

    /// The secret that `stored` holds for a webhook of `appId`.
    public func open(_ stored: String, appId: String) throws(Failure) -> String {
        guard Self.isSealed(stored) else { return stored }
        guard current != nil || previous != nil else { throw .noKey }
        let rest = stored.dropFirst(Self.prefix.count)
        guard let colon = rest.firstIndex(of: ":") else { throw .cannotOpen }
        let keyId = rest[..<colon]
        guard let key = key(id: keyId),
            let data = Data(base64Encoded: String(rest[rest.index(after: colon)...])),
            let box = try? AES.GCM.SealedBox(combined: data),
            let plain = try? AES.GCM.open(box, using: key.key, authenticating: Self.binding(appId)),
            let secret = String(data: plain, encoding: .utf8)
        else { throw .cannotOpen }
        return secret
    }

    /// `stored` as it is to be stored now: sealed with the current key (opened first when sealed
    /// with the previous one); nil when it is already.
    public func resealed(_ stored: String, appId: String) throws -> String? {
        guard seals, !stored.hasPrefix(currentPrefix) else { return nil }
        return try seal(try open(stored, appId: appId), appId: appId)
    }

    /// The additional data a secret is sealed with: its app, by its id in the one form the store
    /// gives back (an id spelled another way seals and opens alike).
    static func binding(_ appId: String) -> Data {
        Data("rivers webhook secret of app \(UUIDText.normalize(appId) ?? appId.lowercased())".utf8)
    }
}
