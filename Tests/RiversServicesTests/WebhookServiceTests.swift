import Foundation
import RiversCore
import RiversServices
import RiversStore
import Testing

/// Webhooks over in-memory storage: no PostgreSQL (the fast tier).
@Suite("Webhooks, in memory")
struct WebhookServiceTests {
    let appId = "77777777-7777-4777-8777-777777777777"

    /// An app "hooked" with no content, and the webhook use cases over it.
    func hookedApp() -> (InMemoryContent, WebhookService) {
        let storage = InMemoryContent()
        storage.addApp(id: appId, slug: "hooked")
        return (storage, WebhookService(storage: storage, seal: .none))
    }

    @Test func everyMoveOfAChannelIsDeliveredToTheWebhooksThatTakeItsEvent() async throws {
        let (storage, webhooks) = hookedApp()
        let (published, _) = try await webhooks.create(
            appId: appId, url: "https://hooks.example.com/a", description: "", events: ["version.published"], createdBy: "ann")
        let (rolledBack, _) = try await webhooks.create(
            appId: appId, url: "https://hooks.example.com/b", description: "", events: ["channel.rolled_back", "app.archived"], createdBy: "ann")
        let (off, _) = try await webhooks.create(
            appId: appId, url: "https://hooks.example.com/c", description: "", events: ["version.published"], createdBy: "ann")
        _ = try await webhooks.update(appId: appId, id: off.id, change: WebhookChange(enabled: false), precondition: .none)
        _ = try await FamilyService(storage: storage).create(appId: appId, body: [
            "id": "FAMILY_1", "reference_size": ["width": 320, "height": 568], "cell_styles": [["id": "LIST_1", "columns": 1, "height": 80]],
        ])
        _ = try await ScreenService(storage: storage).create(appId: appId, body: [
            "name": "Home", "family": "FAMILY_1", "home": true,
            "ui_components": [["component_type": "list", "cell_styles": ["LIST_1"], "data": ["source": "feed-1", "type": "T"]]],
        ])
        let publishing = PublishService(storage: storage)
        _ = try await publishing.publish(appId: appId, note: "first", publishedBy: "ann")
        _ = try await ScreenService(storage: storage).create(appId: appId, body: ["name": "More", "family": "FAMILY_1"])
        _ = try await publishing.publish(appId: appId, note: "second", publishedBy: "ann")
        _ = try await publishing.rollback(appId: appId, to: 1, publishedBy: "ann", note: "")

        let first = try await storage.webhookDeliveries(appId: appId, webhookId: published.id, limit: 10, offset: 0)
        #expect(first.deliveries.map(\.event) == ["version.published", "version.published"], "\(first.deliveries.map(\.event))")
        let payload = try JSONValue.parse(Array(try #require(first.deliveries.last).payload.utf8))
        #expect(payload["type"] == "version.published" && payload["data"]?["channel"] == "production" && payload["data"]?["version"] == 1)
        #expect(payload["data"]?["path"] == "/rivers/hooked/rivers.json" && payload["data"]?["note"] == "first" && payload["data"]?["previous_version"] == .null)
        let second = try await storage.webhookDeliveries(appId: appId, webhookId: rolledBack.id, limit: 10, offset: 0)
        #expect(second.deliveries.map(\.event) == ["channel.rolled_back"])
        #expect(try await storage.webhookDeliveries(appId: appId, webhookId: off.id, limit: 10, offset: 0).total == 0, "a disabled webhook gets nothing")
    }

    @Test func aWebhookIsMadeChangedRotatedPingedAndRemoved() async throws {
        let (storage, webhooks) = hookedApp()
        let (hook, secret) = try await webhooks.create(
            appId: appId, url: "https://hooks.example.com/rivers", description: "CDN purge", events: ["version.published"], createdBy: "ann")
        #expect(secret.hasPrefix("whsec_") && Data(base64Encoded: String(secret.dropFirst(6)))?.count == 32)
        #expect(hook.revision == 1 && hook.enabled && hook.previousSecretUntil == nil)

        // A change names what changes; If-Match is checked.
        let off = try await webhooks.update(appId: appId, id: hook.id, change: WebhookChange(enabled: false), precondition: .oneOf([1]))
        #expect(off.revision == 2 && !off.enabled && off.url == hook.url && off.events == hook.events && off.description == "CDN purge")
        do {
            _ = try await webhooks.update(appId: appId, id: hook.id, change: WebhookChange(description: "late"), precondition: .oneOf([1]))
            Issue.record("a stale change went through")
        } catch StoreError.preconditionFailed(let current) {
            #expect(current == 2)
        }

        // A rotation: a new secret, the old one signing for a day more.
        let (rotated, newSecret) = try await webhooks.rotateSecret(appId: appId, id: hook.id.uppercased())
        #expect(newSecret != secret && rotated.revision == 3)
        let overlap = try #require(rotated.previousSecretUntil).timeIntervalSinceNow
        #expect(abs(overlap - Double(WebhookService.rotationOverlapSeconds)) < 60)

        // A ping waits to be sent; it can be sent again.
        let ping = try await webhooks.ping(appId: appId, id: hook.id)
        #expect(ping.event == "ping" && ping.state == "pending" && ping.webhookId == hook.id)
        let payload = try JSONValue.parse(Array(ping.payload.utf8))
        #expect(payload["type"] == "ping" && payload["data"]?["app"]?["slug"] == "hooked")
        #expect(try await webhooks.redeliver(appId: appId, webhookId: hook.id, id: ping.id).id == ping.id)
        await #expect(throws: StoreError.self) { try await webhooks.redeliver(appId: appId, webhookId: hook.id, id: "msg_none") }
        for unknown in ["not-a-uuid", UUIDText.random()] {
            do {
                _ = try await webhooks.redeliver(appId: appId, webhookId: unknown, id: ping.id)
                Issue.record("a delivery of an unknown webhook was sent again")
            } catch StoreError.notFound(let message) {
                #expect(message.hasPrefix("no webhook "), "an unknown webhook is named as such: \(message)")
            }
        }
        #expect(try await storage.webhookDeliveries(appId: appId, webhookId: hook.id, limit: 10, offset: 0).total == 1)

        // Removed, with its deliveries; then it is unknown.
        try await webhooks.delete(appId: appId, id: hook.id)
        #expect(try await storage.webhooks(appId: appId).isEmpty)
        for call in [
            { _ = try await webhooks.ping(appId: appId, id: hook.id) }, { try await webhooks.delete(appId: appId, id: hook.id) },
            { _ = try await webhooks.rotateSecret(appId: appId, id: "not-a-uuid") },
        ] as [() async throws -> Void] {
            await #expect(throws: StoreError.self) { try await call() }
        }
    }

    @Test("with WEBHOOK_SECRET_KEY a secret is stored sealed to its app; it opens with that key and app only")
    func secretsAreSealedAtRest() async throws {
        let key = Data((0..<32).map { UInt8($0) }).base64EncodedString()
        let seal = try WebhookSecretSeal(base64: key)
        let storage = InMemoryContent()
        storage.addApp(id: appId, slug: "hooked")
        let webhooks = WebhookService(storage: storage, seal: seal)
        let (hook, secret) = try await webhooks.create(
            appId: appId, url: "https://hooks.example.com/rivers", description: "", events: ["version.published"], createdBy: "ann")
        let (_, newSecret) = try await webhooks.rotateSecret(appId: appId, id: hook.id)
        let stored = try #require(storage.storedWebhookSecrets(appId: appId, id: hook.id))
        #expect(stored.count == 2 && stored.allSatisfy(WebhookSecretSeal.isSealed))
        #expect(!stored.contains { $0.contains(String(secret.dropFirst(6))) || $0.contains(String(newSecret.dropFirst(6))) })
        #expect(try stored.map { try seal.open($0, appId: appId) } == [newSecret, secret])
        #expect(try seal.open(stored[0], appId: appId.uppercased()) == newSecret, "ids in any case")

        // Bound to its app, its key, its bytes.
        let otherApp = "88888888-8888-4888-8888-888888888888"
        #expect(throws: WebhookSecretSeal.Failure.cannotOpen) { try seal.open(stored[0], appId: otherApp) }
        let otherKey = try WebhookSecretSeal(base64: Data(repeating: 1, count: 32).base64EncodedString())
        #expect(throws: WebhookSecretSeal.Failure.cannotOpen) { try otherKey.open(stored[0], appId: appId) }
        var damaged = Array(stored[0])
        damaged[damaged.count / 2] = damaged[damaged.count / 2] == "A" ? "B" : "A"
        #expect(throws: WebhookSecretSeal.Failure.cannotOpen) { try seal.open(String(damaged), appId: appId) }
        #expect(throws: WebhookSecretSeal.Failure.noKey) { try WebhookSecretSeal.none.open(stored[0], appId: appId) }
        // Sealing twice gives two texts (a fresh nonce each time); a secret stored before the key opens as it is.
        #expect(try seal.seal(secret, appId: appId) != (try seal.seal(secret, appId: appId)))
        #expect(try seal.open(secret, appId: appId) == secret)
        #expect(try WebhookSecretSeal.none.seal(secret, appId: appId) == secret)

        // A change of key: with the old one as the previous key, what it sealed opens and is sealed
        // again with the new one; the new key alone then opens that, and not what the old one sealed.
        let newKey = Data(repeating: 9, count: 32).base64EncodedString()
        let changed = try WebhookSecretSeal(base64: newKey, previous: key)
        #expect(try changed.open(stored[0], appId: appId) == newSecret)
        let resealed = try #require(try changed.resealed(stored[0], appId: appId))
        #expect(resealed.hasPrefix(changed.currentPrefix) && changed.currentPrefix != seal.currentPrefix)
        #expect(try changed.resealed(resealed, appId: appId) == nil, "already sealed with the current key")
        #expect(try changed.resealed(secret, appId: appId).map { try changed.open($0, appId: appId) } == secret, "a plain secret is sealed")
        let newOnly = try WebhookSecretSeal(base64: newKey)
        #expect(try newOnly.open(resealed, appId: appId) == newSecret)
        #expect(throws: WebhookSecretSeal.Failure.cannotOpen) { try newOnly.open(stored[0], appId: appId) }
        #expect(!changed.currentPrefix.contains(newKey) && changed.currentPrefix.count == "sealed1:".count + 17)

        // The setting is the base64 of exactly 32 bytes.
        for bad in ["", "not base64!", Data(repeating: 1, count: 31).base64EncodedString(), Data(repeating: 1, count: 33).base64EncodedString()] {
            #expect(throws: WebhookSecretSeal.Failure.badKey) { try WebhookSecretSeal(base64: bad) }
            #expect(throws: WebhookSecretSeal.Failure.badKey) { try WebhookSecretSeal(base64: key, previous: bad) }
        }
    }

    @Test func anAppHasTenWebhooksAtMost() async throws {
        let storage = InMemoryContent()
        storage.addApp(id: appId)
        let webhooks = WebhookService(storage: storage, seal: .none)
        for i in 0..<Limits.maxWebhooksPerApp {
            _ = try await webhooks.create(appId: appId, url: "https://h\(i).example.com/", description: "", events: WebhookEvent.all, createdBy: "ann")
        }
        do {
            _ = try await webhooks.create(appId: appId, url: "https://more.example.com/", description: "", events: WebhookEvent.all, createdBy: "ann")
            Issue.record("an eleventh webhook was made")
        } catch StoreError.conflict(let message, _) {
            #expect(message.contains("\(Limits.maxWebhooksPerApp) webhooks"))
        }
    }
}
