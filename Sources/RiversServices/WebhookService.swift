import Foundation
import RiversCore
import RiversStore

/// The use cases of webhooks (issue 27): register an endpoint, change it, remove it, rotate its
/// secret, try it with a ping, send a delivery again. Each is one transaction over a
/// `WebhookStorage`; the rules are here (the caps, `If-Match`, how long a rotated secret keeps
/// signing, the secrets' form). Whether an endpoint may be called at all is checked where it is
/// read (`WebhookTarget`) and again before each delivery.
public struct WebhookService: Sendable {
    let storage: any WebhookStorage
    /// How secrets are kept at rest (sealed when `WEBHOOK_SECRET_KEY` is set).
    let seal: WebhookSecretSeal

    /// `seal` has no default: a caller that forgot it would store secrets unsealed.
    public init(storage: any WebhookStorage, seal: WebhookSecretSeal) {
        self.storage = storage
        self.seal = seal
    }

    /// How long the secret before a rotation keeps signing beside the new one.
    public static let rotationOverlapSeconds = 24 * 3600

    /// `whsec_` and 32 random bytes in base64, as the Standard Webhooks libraries read it.
    static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return "whsec_" + Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64EncodedString()
    }

    static func notFound(_ id: String) -> StoreError { .notFound("no webhook \(String(id.prefix(40))) in this app") }

    /// A new webhook and its secret (shown once).
    public func create(appId: String, url: String, description: String, events: [String], createdBy: String) async throws -> (webhook: Webhook, secret: String) {
        let secret = Self.newSecret()
        let stored = try seal.seal(secret, appId: appId)
        let hook = try await storage.withWebhooks(appId: appId) { tx in
            try AppCaps.refuseAtCap(try await tx.webhookCount(), limit: Limits.maxWebhooksPerApp, "webhooks")
            return try await tx.insertWebhook(url: url, description: description, events: events, secret: stored, createdBy: createdBy)
        }
        return (hook, secret)
    }

    /// Changes what `change` names; the rest stays.
    public func update(appId: String, id: String, change: WebhookChange, precondition: RevisionPrecondition) async throws -> Webhook {
        try await storage.withWebhooks(appId: appId) { tx in
            guard var hook = try await tx.webhook(id: id) else { throw Self.notFound(id) }
            try precondition.check(hook.revision)
            hook.url = change.url ?? hook.url
            hook.description = change.description ?? hook.description
            hook.events = change.events ?? hook.events
            hook.enabled = change.enabled ?? hook.enabled
            return try await tx.updateWebhook(hook)
        }
    }

    public func delete(appId: String, id: String) async throws {
        try await storage.withWebhooks(appId: appId) { tx in
            guard try await tx.deleteWebhook(id: id) else { throw Self.notFound(id) }
        }
    }

    /// A new secret (shown once); the one it replaces keeps signing for a day beside it.
    public func rotateSecret(appId: String, id: String) async throws -> (webhook: Webhook, secret: String) {
        let secret = Self.newSecret()
        let stored = try seal.seal(secret, appId: appId)
        let hook = try await storage.withWebhooks(appId: appId) { tx in
            guard let hook = try await tx.rotateSecret(id: id, to: stored, overlapSeconds: Self.rotationOverlapSeconds) else { throw Self.notFound(id) }
            return hook
        }
        return (hook, secret)
    }

    /// A `ping` event to this webhook alone, to try a receiver.
    public func ping(appId: String, id: String) async throws -> WebhookDelivery {
        try await storage.withWebhooks(appId: appId) { tx in
            guard let hook = try await tx.webhook(id: id) else { throw Self.notFound(id) }
            try AppCaps.refuseAtCap(
                try await tx.pendingDeliveries(webhookId: hook.id, besides: nil), limit: Limits.maxPendingDeliveriesPerWebhook, "pending deliveries for this webhook")
            return try await tx.insertPing(webhookId: hook.id)
        }
    }

    /// Sends a delivery again now (whatever became of it), with a fresh day of retries.
    public func redeliver(appId: String, webhookId: String, id: String) async throws -> WebhookDelivery {
        try await storage.withWebhooks(appId: appId) { tx in
            // An unknown webhook is named as such, not as a delivery it has not.
            guard try await tx.webhook(id: webhookId) != nil else { throw Self.notFound(webhookId) }
            // A delivery waiting already adds none by being sent again.
            try AppCaps.refuseAtCap(
                try await tx.pendingDeliveries(webhookId: webhookId, besides: id), limit: Limits.maxPendingDeliveriesPerWebhook, "pending deliveries for this webhook")
            guard let delivery = try await tx.redeliver(webhookId: webhookId, id: id) else {
                throw StoreError.notFound("no delivery \(String(id.prefix(40))) of this webhook")
            }
            return delivery
        }
    }
}

extension WebhookService {
    /// What `sealStoredSecrets` did.
    public struct SealingOutcome: Sendable, Equatable {
        /// A webhook, by its id and its app's.
        public struct Webhook: Sendable, Equatable {
            public var id: String
            public var appId: String
        }
        /// Webhooks whose secrets it sealed.
        public var sealed: Int
        /// Webhooks with a secret no key given opens (sealed with a key no longer set): left as
        /// they are; the first `unopenableShown` of them, and how many in all.
        public var unopenable: [Webhook]
        public var unopenableCount: Int
        public static let unopenableShown = 20

        public init(sealed: Int = 0, unopenable: [Webhook] = [], unopenableCount: Int = 0) {
            (self.sealed, self.unopenable, self.unopenableCount) = (sealed, unopenable, unopenableCount)
        }
    }

    /// What an operator should hear when a process starts: stored secrets sealed with a key it
    /// does not have (their webhooks' deliveries cannot be signed: each attempt fails, saying why),
    /// and secrets stored as they are while a key is set (`rivers webhook seal-secrets` seals them).
    /// Every app's, or `appId`'s only.
    public static func keyWarnings(in storage: any WebhookSecretStorage, seal: WebhookSecretSeal, appId: String? = nil) async throws -> [String] {
        var unopenable = 0, plain = 0
        // Previous secrets count only while they still sign (within their overlap).
        for (keyId, count) in try await storage.webhookSecretCountsByKey(sealedPrefix: WebhookSecretSeal.prefix, appId: appId, limit: 1_000) {
            if let keyId {
                if !seal.opens(keyId: keyId) { unopenable += count }
            } else {
                plain += count
            }
        }
        var warnings: [String] = []
        if unopenable > 0 {
            warnings.append(
                seal.seals
                    ? "\(unopenable) stored webhook secret(s) are sealed with a key that neither WEBHOOK_SECRET_KEY nor WEBHOOK_SECRET_KEY_PREVIOUS is: deliveries that need them cannot be signed and are not sent (set the key they were sealed with as WEBHOOK_SECRET_KEY_PREVIOUS)"
                    : "\(unopenable) stored webhook secret(s) are sealed, and WEBHOOK_SECRET_KEY is not set: deliveries that need them cannot be signed and are not sent, and new secrets are stored unsealed (set WEBHOOK_SECRET_KEY on this process)")
        }
        if plain > 0, seal.seals {
            warnings.append("\(plain) stored webhook secret(s) are not sealed: run `rivers webhook seal-secrets` to seal them with WEBHOOK_SECRET_KEY")
        }
        return warnings
    }

    /// Seals with the current key every stored secret that is not (written before
    /// `WEBHOOK_SECRET_KEY` was set, or sealed with the key before it), a page at a time. Each
    /// webhook is one write, made only while its secrets are still those read (a rotation in
    /// between wins). A previous secret whose overlap has ended signs nothing: it is dropped, not
    /// opened. A webhook whose secret no key opens is counted and passed over (the others are
    /// still sealed). Every app's, or `appId`'s only. Nothing without a key.
    public static func sealStoredSecrets(in storage: any WebhookSecretStorage, with seal: WebhookSecretSeal, appId: String? = nil) async throws -> SealingOutcome {
        var outcome = SealingOutcome()
        guard seal.seals else { return outcome }
        var after: String?
        while true {
            let page = try await storage.unsealedWebhookSecrets(sealedPrefix: seal.currentPrefix, appId: appId, after: after, limit: 100)
            guard let last = page.last else { return outcome }
            for stored in page {
                let secret: String, previous: String?
                do {
                    secret = try seal.resealed(stored.secret, appId: stored.appId) ?? stored.secret
                    previous = try stored.previousExpired ? nil : stored.previous.map { try seal.resealed($0, appId: stored.appId) ?? $0 }
                } catch is WebhookSecretSeal.Failure {
                    outcome.unopenableCount += 1
                    if outcome.unopenable.count < SealingOutcome.unopenableShown {
                        outcome.unopenable.append(.init(id: stored.id, appId: stored.appId))
                    }
                    continue
                }
                if try await storage.replaceWebhookSecrets(stored, secret: secret, previous: previous) { outcome.sealed += 1 }
            }
            after = last.id
        }
    }
}
