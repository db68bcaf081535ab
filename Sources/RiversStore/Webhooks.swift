import Foundation
import PostgresNIO
import RiversCore

/// A webhook: an endpoint told of an app's releases (issue 27). Its secret is shown when it is
/// made or rotated, never listed.
public struct Webhook: Sendable, Equatable {
    public var id: String
    public var url: String
    public var description: String
    public var events: [String]
    public var enabled: Bool
    public var revision: Int
    public var createdBy: String
    public var createdAt: Date
    public var updatedAt: Date
    /// Until when the secret before the latest rotation still signs (nil when none does).
    public var previousSecretUntil: Date?
}

public struct WebhookDelivery: Sendable, Equatable {
    public var id: String
    public var webhookId: String
    public var event: String
    public var payload: String
    public var state: String
    public var attempts: Int
    public var nextAttemptAt: Date
    public var lastStatus: Int?
    public var lastError: String
    public var createdAt: Date
    public var deliveredAt: Date?
}

public struct WebhookAttempt: Sendable, Equatable {
    public var number: Int
    public var at: Date
    public var status: Int?
    public var error: String
    public var durationMs: Int
}

/// A delivery claimed for sending: where, what, and the secrets to sign with.
public struct DueDelivery: Sendable {
    public var id: String
    public var appId: String
    public var url: String
    public var payload: String
    public var secrets: [String]
    public var attempt: Int
    public var createdAt: Date
    public var enabled: Bool
}

/// What changes in a webhook (nil: left as it is).
public struct WebhookChange: Sendable {
    public var url: String?
    public var description: String?
    public var events: [String]?
    public var enabled: Bool?
    public init(url: String? = nil, description: String? = nil, events: [String]? = nil, enabled: Bool? = nil) {
        self.url = url
        self.description = description
        self.events = events
        self.enabled = enabled
    }
}

public protocol WebhookRepository: Sendable {
    func webhooks(appId: String) async throws -> [Webhook]
    func webhook(appId: String, id: String) async throws -> Webhook
    func createWebhook(appId: String, url: String, description: String, events: [String], createdBy: String) async throws -> (webhook: Webhook, secret: String)
    func updateWebhook(appId: String, id: String, change: WebhookChange, precondition: RevisionPrecondition) async throws -> Webhook
    func deleteWebhook(appId: String, id: String) async throws
    func rotateWebhookSecret(appId: String, id: String) async throws -> (webhook: Webhook, secret: String)
    func webhookDeliveries(appId: String, webhookId: String, limit: Int, offset: Int) async throws -> (deliveries: [WebhookDelivery], total: Int)
    func webhookDelivery(appId: String, webhookId: String, id: String) async throws -> (delivery: WebhookDelivery, attempts: [WebhookAttempt])
    func redeliver(appId: String, webhookId: String, id: String) async throws -> WebhookDelivery
    func pingWebhook(appId: String, id: String) async throws -> WebhookDelivery
    func claimDueDeliveries(limit: Int, lease: Int) async throws -> [DueDelivery]
    func recordAttempt(_ delivery: DueDelivery, status: Int?, error: String, durationMs: Int, delivered: Bool, nextAttemptAt: Date?) async throws
    func sweepDeliveries() async throws
}

extension Store: WebhookRepository {
    /// `whsec_` and 32 random bytes in base64, as the Standard Webhooks libraries read it.
    static func webhookSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return "whsec_" + Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64EncodedString()
    }

    /// How long the secret before a rotation keeps signing.
    public static let webhookRotationOverlap = 24 * 3600

    static let webhookColumns = """
        id::text, url, description, events, enabled, revision, created_by, created_at, updated_at,
        CASE WHEN previous_secret_expires_at > now() THEN previous_secret_expires_at END
        """
    static let deliveryColumns = "id, webhook_id::text, event, payload, state, attempts, next_attempt_at, last_status, last_error, created_at, delivered_at"

    static func webhooks(from rows: PostgresRowSequence) async throws -> [Webhook] {
        var result: [Webhook] = []
        for try await (id, url, description, events, enabled, revision, by, created, updated, previousUntil) in rows.decode(
            (String, String, String, [String], Bool, Int, String, Date, Date, Date?).self)
        {
            result.append(Webhook(
                id: id, url: url, description: description, events: events, enabled: enabled, revision: revision, createdBy: by,
                createdAt: created, updatedAt: updated, previousSecretUntil: previousUntil))
        }
        return result
    }

    static func deliveries(from rows: PostgresRowSequence) async throws -> [WebhookDelivery] {
        var result: [WebhookDelivery] = []
        for try await (id, webhook, event, payload, state, attempts, next, status, error, created, delivered) in rows.decode(
            (String, String, String, String, String, Int, Date, Int?, String, Date, Date?).self)
        {
            result.append(WebhookDelivery(
                id: id, webhookId: webhook, event: event, payload: payload, state: state, attempts: attempts, nextAttemptAt: next,
                lastStatus: status, lastError: error, createdAt: created, deliveredAt: delivered))
        }
        return result
    }

    func notFoundWebhook(_ id: String) -> StoreError { .notFound("no webhook \(String(id.prefix(40))) in this app") }

    public func webhooks(appId: String) async throws -> [Webhook] {
        try await Self.webhooks(from: client.query(
            "SELECT \(unescaped: Self.webhookColumns) FROM webhooks WHERE app_id = \(appId)::uuid ORDER BY created_at, id", logger: logger))
    }

    public func webhook(appId: String, id: String) async throws -> Webhook {
        guard UUIDText.normalize(id) != nil, let hook = try await Self.webhooks(from: client.query(
            "SELECT \(unescaped: Self.webhookColumns) FROM webhooks WHERE app_id = \(appId)::uuid AND id = \(id)::uuid", logger: logger)).first
        else { throw notFoundWebhook(id) }
        return hook
    }

    public func createWebhook(appId: String, url: String, description: String, events: [String], createdBy: String) async throws -> (webhook: Webhook, secret: String) {
        let secret = Self.webhookSecret()
        let hook = try await client.transaction(logger: logger) { connection in
            _ = try await self.lockApp(appId, on: connection)
            try AppCaps.refuseAtCap(
                try await self.number("SELECT count(*)::int FROM webhooks WHERE app_id = \(appId)::uuid", on: connection),
                limit: Limits.maxWebhooksPerApp, "webhooks")
            return try await Self.webhooks(from: connection.query(
                """
                INSERT INTO webhooks (id, app_id, url, description, events, secret, created_by)
                VALUES (\(UUIDText.random())::uuid, \(appId)::uuid, \(url), \(description), \(events), \(secret), \(createdBy))
                RETURNING \(unescaped: Self.webhookColumns)
                """, logger: self.logger)).first!
        }
        return (hook, secret)
    }

    public func updateWebhook(appId: String, id: String, change: WebhookChange, precondition: RevisionPrecondition) async throws -> Webhook {
        guard UUIDText.normalize(id) != nil else { throw notFoundWebhook(id) }
        return try await client.transaction(logger: logger) { connection in
            guard let current = try await Self.webhooks(from: connection.query(
                "SELECT \(unescaped: Self.webhookColumns) FROM webhooks WHERE app_id = \(appId)::uuid AND id = \(id)::uuid FOR UPDATE",
                logger: self.logger)).first
            else { throw self.notFoundWebhook(id) }
            try precondition.check(current.revision)
            return try await Self.webhooks(from: connection.query(
                """
                UPDATE webhooks SET url = \(change.url ?? current.url), description = \(change.description ?? current.description),
                    events = \(change.events ?? current.events), enabled = \(change.enabled ?? current.enabled),
                    revision = revision + 1, updated_at = now()
                WHERE id = \(id)::uuid RETURNING \(unescaped: Self.webhookColumns)
                """, logger: self.logger)).first!
        }
    }

    public func deleteWebhook(appId: String, id: String) async throws {
        guard UUIDText.normalize(id) != nil,
            try await changedRows("DELETE FROM webhooks WHERE app_id = \(appId)::uuid AND id = \(id)::uuid RETURNING 1") > 0
        else { throw notFoundWebhook(id) }
    }

    /// A new secret; the one it replaces keeps signing for a day beside it.
    public func rotateWebhookSecret(appId: String, id: String) async throws -> (webhook: Webhook, secret: String) {
        guard UUIDText.normalize(id) != nil else { throw notFoundWebhook(id) }
        let secret = Self.webhookSecret()
        let hook = try await client.transaction(logger: logger) { connection -> Webhook? in
            try await Self.webhooks(from: connection.query(
                """
                UPDATE webhooks SET previous_secret = secret, previous_secret_expires_at = now() + make_interval(secs => \(Self.webhookRotationOverlap)),
                    secret = \(secret), revision = revision + 1, updated_at = now()
                WHERE app_id = \(appId)::uuid AND id = \(id)::uuid RETURNING \(unescaped: Self.webhookColumns)
                """, logger: self.logger)).first
        }
        guard let hook else { throw notFoundWebhook(id) }
        return (hook, secret)
    }

    public func webhookDeliveries(appId: String, webhookId: String, limit: Int, offset: Int) async throws -> (deliveries: [WebhookDelivery], total: Int) {
        _ = try await webhook(appId: appId, id: webhookId)
        let list = try await Self.deliveries(from: client.query(
            """
            SELECT \(unescaped: Self.deliveryColumns) FROM webhook_deliveries
            WHERE app_id = \(appId)::uuid AND webhook_id = \(webhookId)::uuid ORDER BY created_at DESC, id LIMIT \(limit) OFFSET \(offset)
            """, logger: logger))
        return (list, try await count("SELECT count(*)::int FROM webhook_deliveries WHERE app_id = \(appId)::uuid AND webhook_id = \(webhookId)::uuid"))
    }

    public func webhookDelivery(appId: String, webhookId: String, id: String) async throws -> (delivery: WebhookDelivery, attempts: [WebhookAttempt]) {
        guard UUIDText.normalize(webhookId) != nil else { throw notFoundWebhook(webhookId) }
        return try await client.reading { connection in
            guard let delivery = try await Self.deliveries(from: connection.query(
                """
                SELECT \(unescaped: Self.deliveryColumns) FROM webhook_deliveries
                WHERE app_id = \(appId)::uuid AND webhook_id = \(webhookId)::uuid AND id = \(id)
                """, logger: self.logger)).first
            else { throw StoreError.notFound("no delivery \(String(id.prefix(40))) of this webhook") }
            var attempts: [WebhookAttempt] = []
            for try await (number, at, status, error, duration) in try await connection.query(
                "SELECT number, at, status, error, duration_ms FROM webhook_attempts WHERE delivery_id = \(id) ORDER BY number",
                logger: self.logger
            ).decode((Int, Date, Int?, String, Int).self) {
                attempts.append(WebhookAttempt(number: number, at: at, status: status, error: error, durationMs: duration))
            }
            return (delivery, attempts)
        }
    }

    /// Sends a delivery again now (whatever became of it), with a fresh day of retries.
    public func redeliver(appId: String, webhookId: String, id: String) async throws -> WebhookDelivery {
        guard UUIDText.normalize(webhookId) != nil else { throw notFoundWebhook(webhookId) }
        guard let delivery = try await client.transaction(logger: logger, { connection in
            try await Self.deliveries(from: connection.query(
                """
                UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = now(), created_at = now(), delivered_at = NULL
                WHERE app_id = \(appId)::uuid AND webhook_id = \(webhookId)::uuid AND id = \(id)
                RETURNING \(unescaped: Self.deliveryColumns)
                """, logger: self.logger)).first
        }) else { throw StoreError.notFound("no delivery \(String(id.prefix(40))) of this webhook") }
        return delivery
    }

    /// A `ping` event to this webhook alone, to try a receiver.
    public func pingWebhook(appId: String, id: String) async throws -> WebhookDelivery {
        let hook = try await webhook(appId: appId, id: id)
        return try await client.transaction(logger: logger) { connection in
            try AppCaps.refuseAtCap(
                try await self.number(
                    "SELECT count(*)::int FROM webhook_deliveries WHERE webhook_id = \(hook.id)::uuid AND state = 'pending'", on: connection),
                limit: Limits.maxPendingDeliveriesPerWebhook, "pending deliveries for this webhook")
            return try await Self.deliveries(from: connection.query(
                """
                INSERT INTO webhook_deliveries (id, app_id, webhook_id, event, payload)
                SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), a.id, \(hook.id)::uuid, 'ping',
                       jsonb_build_object('type', 'ping', 'timestamp', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                                          'data', jsonb_build_object('app', jsonb_build_object('id', a.id, 'slug', a.slug)))::text
                FROM apps a WHERE a.id = \(appId)::uuid
                RETURNING \(unescaped: Self.deliveryColumns)
                """, logger: self.logger)).first!
        }
    }

    /// Takes up to `limit` due deliveries no other process holds, and leases them for `lease`
    /// seconds (a process that dies while sending leaves them to be taken again then).
    public func claimDueDeliveries(limit: Int, lease: Int) async throws -> [DueDelivery] {
        try await client.transaction(logger: logger) { connection in
            var result: [DueDelivery] = []
            for try await (id, appId, url, payload, secret, previous, attempt, created, enabled) in try await connection.query(
                """
                WITH due AS (
                    SELECT id FROM webhook_deliveries WHERE state = 'pending' AND next_attempt_at <= now()
                    ORDER BY next_attempt_at LIMIT \(limit) FOR UPDATE SKIP LOCKED
                ), claimed AS (
                    UPDATE webhook_deliveries d SET attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => \(lease))
                    FROM due WHERE d.id = due.id RETURNING d.id, d.app_id, d.webhook_id, d.payload, d.attempts, d.created_at
                )
                SELECT c.id, c.app_id::text, w.url, c.payload, w.secret,
                       CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret END, c.attempts, c.created_at, w.enabled
                FROM claimed c JOIN webhooks w ON w.id = c.webhook_id
                """, logger: self.logger
            ).decode((String, String, String, String, String, String?, Int, Date, Bool).self) {
                result.append(DueDelivery(
                    id: id, appId: appId, url: url, payload: payload, secrets: [secret] + (previous.map { [$0] } ?? []), attempt: attempt,
                    createdAt: created, enabled: enabled))
            }
            return result
        }
    }

    /// One attempt's outcome: logged, and the delivery delivered, tried again at `nextAttemptAt`,
    /// or (neither) failed for good.
    public func recordAttempt(_ delivery: DueDelivery, status: Int?, error: String, durationMs: Int, delivered: Bool, nextAttemptAt: Date?) async throws {
        let state = delivered ? "delivered" : nextAttemptAt == nil ? "failed" : "pending"
        let error = String(error.prefix(500))
        try await client.transaction(logger: logger) { connection in
            try await connection.query(
                """
                INSERT INTO webhook_attempts (delivery_id, number, status, error, duration_ms)
                VALUES (\(delivery.id), \(delivery.attempt), \(status), \(error), \(durationMs)) ON CONFLICT DO NOTHING
                """, logger: self.logger)
            try await connection.query(
                """
                UPDATE webhook_deliveries SET state = \(state), last_status = \(status), last_error = \(error),
                    next_attempt_at = coalesce(\(nextAttemptAt), next_attempt_at),
                    delivered_at = CASE WHEN \(delivered) THEN now() END
                WHERE id = \(delivery.id) AND attempts = \(delivery.attempt)
                """, logger: self.logger)
        }
    }

    /// Finished deliveries older than the log keeps (`Limits.webhookLogDays`) go, with their attempts.
    public func sweepDeliveries() async throws {
        try await client.query(
            """
            DELETE FROM webhook_deliveries WHERE state <> 'pending' AND created_at < now() - make_interval(days => \(Limits.webhookLogDays))
            """, logger: logger)
    }
}
