import Crypto
import Foundation
import RiversCore

/// Webhook secrets at rest (`WEBHOOK_SECRET_KEY`). Signing needs the secret itself, so it cannot
/// be hashed: with a key it is sealed (AES-256-GCM) and bound to its app (a sealed secret copied
/// into another app's row does not open), so that a copy of the database cannot sign webhooks.
/// Without a key secrets are stored as they are. A stored secret without the seal's prefix
/// (written before the key was set) still opens as it is, and is sealed by its next rotation.
public struct WebhookSecretSeal: Sendable {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The setting is not the base64 of 32 bytes.
        case badKey
        /// A sealed secret and no key to open it.
        case noKey
        /// Sealed under another key, for another app, or damaged.
        case cannotOpen

        public var description: String {
            switch self {
            case .badKey: "WEBHOOK_SECRET_KEY must be the base64 of 32 random bytes (e.g. `openssl rand -base64 32`)"
            case .noKey: "the webhook's secret is sealed and WEBHOOK_SECRET_KEY is not set"
            case .cannotOpen: "the webhook's secret does not open with WEBHOOK_SECRET_KEY (another key, or damaged)"
            }
        }
    }

    static let prefix = "sealed1:"
    let key: SymmetricKey?

    /// No key: secrets are stored as they are.
    public static let none = WebhookSecretSeal(key: nil)

    init(key: SymmetricKey?) { self.key = key }

    /// The key from the setting's text: the base64 of 32 bytes.
    public init(base64 text: String) throws(Failure) {
        guard let bytes = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)), bytes.count == 32 else { throw .badKey }
        key = SymmetricKey(data: bytes)
    }

    public var seals: Bool { key != nil }

    /// Whether `stored` is a sealed secret.
    public static func isSealed(_ stored: String) -> Bool { stored.hasPrefix(prefix) }

    /// What to store for `secret` of a webhook of `appId`.
    public func seal(_ secret: String, appId: String) throws -> String {
        guard let key else { return secret }
        let box = try AES.GCM.seal(Data(secret.utf8), using: key, authenticating: Self.binding(appId))
        guard let combined = box.combined else { throw Failure.cannotOpen }
        return Self.prefix + combined.base64EncodedString()
    }

    /// The secret that `stored` holds for a webhook of `appId`.
    public func open(_ stored: String, appId: String) throws(Failure) -> String {
        guard Self.isSealed(stored) else { return stored }
        guard let key else { throw .noKey }
        guard let data = Data(base64Encoded: String(stored.dropFirst(Self.prefix.count))),
            let box = try? AES.GCM.SealedBox(combined: data),
            let plain = try? AES.GCM.open(box, using: key, authenticating: Self.binding(appId)),
            let secret = String(data: plain, encoding: .utf8)
        else { throw .cannotOpen }
        return secret
    }

    /// The additional data a secret is sealed with: its app, by its id in the one form the store
    /// gives back (an id spelled another way seals and opens alike).
    static func binding(_ appId: String) -> Data {
        Data("rivers webhook secret of app \(UUIDText.normalize(appId) ?? appId.lowercased())".utf8)
    }
}
