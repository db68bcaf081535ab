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

/// An app's webhooks and their deliveries as the routes read them (their changes are
/// `WebhookService`'s, over a `WebhookStorage`).
public protocol WebhookRepository: Sendable {
    func webhooks(appId: String) async throws -> [Webhook]
    func webhook(appId: String, id: String) async throws -> Webhook
    func webhookDeliveries(appId: String, webhookId: String, limit: Int, offset: Int) async throws -> (deliveries: [WebhookDelivery], total: Int)
    func webhookDelivery(appId: String, webhookId: String, id: String) async throws -> (delivery: WebhookDelivery, attempts: [WebhookAttempt])
}

/// The deliveries' outbox as the deliverer (`WebhookDeliverer`) works it: rows written by the
/// triggers of the changes they tell of, claimed under a lease, their attempts recorded.
public protocol WebhookOutbox: Sendable {
    /// Takes up to `limit` due deliveries no other process holds, at most `perApp` of any one
    /// app less what the caller has of it in flight (`inFlight`, by app id), the apps whose
    /// deliveries have waited longest first, and leases them for `lease` seconds.
    func claimDueDeliveries(limit: Int, perApp: Int, inFlight: [String: Int], lease: Int) async throws -> [DueDelivery]
    func recordAttempt(_ delivery: DueDelivery, status: Int?, error: String, durationMs: Int, delivered: Bool, nextAttemptAt: Date?) async throws
    func sweepDeliveries() async throws
}

/// A webhook's secrets as stored (its current one, and the one before a rotation).
public struct StoredWebhookSecrets: Sendable, Equatable {
    public var id: String
    public var appId: String
    public var secret: String
    public var previous: String?
    /// The previous secret's overlap has ended: it signs nothing any more.
    public var previousExpired: Bool

    public init(id: String, appId: String, secret: String, previous: String?, previousExpired: Bool = false) {
        (self.id, self.appId, self.secret, self.previous, self.previousExpired) = (id, appId, secret, previous, previousExpired)
    }
}

/// Every app's webhook secrets, for sealing those stored before `WEBHOOK_SECRET_KEY` was set
/// (`rivers webhook seal-secrets`). `Store` in SQL.
public protocol WebhookSecretStorage: Sendable {
    /// Up to `limit` webhooks (of `appId`'s app, or of every app), in id order after `after`,
    /// with a secret not starting with `sealedPrefix`.
    func unsealedWebhookSecrets(sealedPrefix: String, appId: String?, after: String?, limit: Int) async throws -> [StoredWebhookSecrets]
    /// Stores `secret` and `previous` for `was`'s webhook if its secrets are still `was`'s (a
    /// rotation in between wins); whether it did. The webhook's revision stays.
    func replaceWebhookSecrets(_ was: StoredWebhookSecrets, secret: String, previous: String?) async throws -> Bool
    /// How many stored secrets (current, and previous ones still in their overlap) each key sealed, by the key's id as the
    /// sealed text names it (`<sealedPrefix><id>:…`), nil for those stored as they are; at most `limit`
    /// keys. Every app's, or `appId`'s only.
    func webhookSecretCountsByKey(sealedPrefix: String, appId: String?, limit: Int) async throws -> [(keyId: String?, count: Int)]
}

/// Where webhooks are kept, for their use cases (`WebhookService` in RiversServices): the
/// service holds the rules (the caps, `If-Match`, a rotation's overlap); a storage only reads and
/// writes, on one transaction over the app (its row locked). `Store` in SQL; `InMemoryContent`.
public protocol WebhookStorage: Sendable {
    func withWebhooks<T: Sendable>(appId: String, _ work: @escaping @Sendable (any WebhookTransaction) async throws -> T) async throws -> T
}

/// The webhooks of one app inside one transaction.
public protocol WebhookTransaction: AnyObject {
    /// The webhook `id` (a UUID), locked for update; nil when the app has none.
    func webhook(id: String) async throws -> Webhook?
    func webhookCount() async throws -> Int
    func insertWebhook(url: String, description: String, events: [String], secret: String, createdBy: String) async throws -> Webhook
    /// Writes the webhook's url, description, events and enabled flag; its revision goes up.
    func updateWebhook(_ hook: Webhook) async throws -> Webhook
    /// Removes a webhook with its deliveries; false when the app has none with this id.
    func deleteWebhook(id: String) async throws -> Bool
    /// A new secret; the one it replaces keeps signing for `overlapSeconds`. Nil for no webhook.
    func rotateSecret(id: String, to secret: String, overlapSeconds: Int) async throws -> Webhook?
    /// Deliveries of the webhook waiting to be sent, other than `besides` (a delivery's id).
    func pendingDeliveries(webhookId: String, besides: String?) async throws -> Int
    /// A `ping` delivery to this webhook alone, due now.
    func insertPing(webhookId: String) async throws -> WebhookDelivery
    /// Makes a delivery pending again, due now, with a fresh day of retries; nil when the
    /// webhook has no delivery with this id.
    func redeliver(webhookId: String, id: String) async throws -> WebhookDelivery?
}

extension Store: WebhookRepository, WebhookOutbox, WebhookSecretStorage {
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
                // The latest 100: redeliveries add attempts without end (`attempts` counts them all).
                """
                SELECT number, at, status, error, duration_ms FROM (
                    SELECT number, at, status, error, duration_ms FROM webhook_attempts WHERE delivery_id = \(id) ORDER BY number DESC LIMIT 100
                ) AS latest ORDER BY number
                """,
                logger: self.logger
            ).decode((Int, Date, Int?, String, Int).self) {
                attempts.append(WebhookAttempt(number: number, at: at, status: status, error: error, durationMs: duration))
            }
            return (delivery, attempts)
        }
    }

    public func unsealedWebhookSecrets(sealedPrefix: String, appId: String?, after: String?, limit: Int) async throws -> [StoredWebhookSecrets] {
        var result: [StoredWebhookSecrets] = []
        for try await (id, appId, secret, previous, previousExpired) in try await client.query(
            """
            SELECT id::text, app_id::text, secret, previous_secret, (previous_secret_expires_at > now()) IS NOT TRUE FROM webhooks
            WHERE (left(secret, length(\(sealedPrefix))) <> \(sealedPrefix) OR left(previous_secret, length(\(sealedPrefix))) <> \(sealedPrefix))
              AND id > coalesce(\(after)::uuid, '00000000-0000-0000-0000-000000000000'::uuid)
              AND (\(appId)::uuid IS NULL OR app_id = \(appId)::uuid)
            ORDER BY id LIMIT \(limit)
            """, logger: logger
        ).decode((String, String, String, String?, Bool).self) {
            result.append(StoredWebhookSecrets(id: id, appId: appId, secret: secret, previous: previous, previousExpired: previousExpired))
        }
        return result
    }

    public func webhookSecretCountsByKey(sealedPrefix: String, appId: String?, limit: Int) async throws -> [(keyId: String?, count: Int)] {
        var result: [(keyId: String?, count: Int)] = []
        for try await (keyId, count) in try await client.query(
            """
            SELECT CASE WHEN left(s, length(\(sealedPrefix))) = \(sealedPrefix) THEN split_part(s, ':', 2) END, count(*)::bigint
            FROM (
              SELECT secret AS s FROM webhooks WHERE \(appId)::uuid IS NULL OR app_id = \(appId)::uuid
              UNION ALL
              SELECT previous_secret FROM webhooks
              WHERE previous_secret IS NOT NULL AND previous_secret_expires_at > now() AND (\(appId)::uuid IS NULL OR app_id = \(appId)::uuid)
            ) stored
            GROUP BY 1 ORDER BY 2 DESC LIMIT \(limit)
            """, logger: logger
        ).decode((String?, Int).self) {
            result.append((keyId, count))
        }
        return result
    }

    public func replaceWebhookSecrets(_ was: StoredWebhookSecrets, secret: String, previous: String?) async throws -> Bool {
        try await client.query(
            """
            UPDATE webhooks SET secret = \(secret), previous_secret = \(previous)
            WHERE id = \(was.id)::uuid AND secret = \(was.secret) AND previous_secret IS NOT DISTINCT FROM \(was.previous)
            RETURNING id
            """, logger: logger
        ).collect().count == 1
    }

    /// Takes up to `limit` due deliveries no other process holds, and leases them for `lease`
    /// seconds (a process that dies while sending leaves them to be taken again then). Shared
    /// between apps: at most `perApp` of one app less what the caller has of it in flight, the
    /// apps whose oldest due delivery has waited longest first (one app's backlog or slow
    /// receiver cannot hold back another's).
    ///
    /// The claim runs ten times a second per process while anything is in flight, so finding those
    /// apps reads a bounded part of the table: the oldest `claimWindow` due deliveries, in time
    /// order. An app's first delivery there is its oldest due one and every app not there has
    /// waited less, so the apps found there come first in order, exactly; only when they are too
    /// few (one app's backlog fills the window) are the apps looked for by skipping from app to
    /// app along the index by app: one short read per app with deliveries pending. Grouping every
    /// due delivery, as before, read them all (up to 10,000 an app); skipping alone read every
    /// app with a delivery waiting for its retry.
    public func claimDueDeliveries(limit: Int, perApp: Int, inFlight: [String: Int], lease: Int) async throws -> [DueDelivery] {
        try await client.transaction(logger: logger) { connection in
            var candidates: [(appId: String, oldest: Date)] = []
            var windowRows = 0
            for try await (appId, oldest, rows) in try await connection.query(
                """
                WITH w AS (
                    SELECT app_id, next_attempt_at FROM webhook_deliveries
                    WHERE state = 'pending' AND next_attempt_at <= now() ORDER BY next_attempt_at LIMIT \(Self.claimWindow)
                )
                SELECT app_id::text, min(next_attempt_at), (SELECT count(*) FROM w)::int FROM w GROUP BY app_id ORDER BY 2, 1
                """, logger: self.logger
            ).decode((String, Date, Int).self) {
                candidates.append((appId, oldest))
                windowRows = rows
            }
            var apps = Self.claimOrder(candidates, inFlight: inFlight, perApp: perApp, limit: limit)
            if apps.count < limit, windowRows >= Self.claimWindow {
                candidates = []
                for try await (appId, oldest) in try await connection.query(
                    """
                    WITH RECURSIVE heads AS (
                        (SELECT app_id, next_attempt_at FROM webhook_deliveries
                         WHERE state = 'pending' ORDER BY app_id, next_attempt_at LIMIT 1)
                        UNION ALL
                        SELECT n.app_id, n.next_attempt_at FROM heads h CROSS JOIN LATERAL (
                            SELECT app_id, next_attempt_at FROM webhook_deliveries
                            WHERE state = 'pending' AND app_id > h.app_id ORDER BY app_id, next_attempt_at LIMIT 1
                        ) n
                    )
                    SELECT app_id::text, next_attempt_at FROM heads WHERE next_attempt_at <= now()
                    ORDER BY next_attempt_at, app_id LIMIT \(limit + inFlight.count)
                    """, logger: self.logger
                ).decode((String, Date).self) {
                    candidates.append((appId, oldest))
                }
                apps = Self.claimOrder(candidates, inFlight: inFlight, perApp: perApp, limit: limit)
            }
            guard !apps.isEmpty else { return [] }
            var result: [DueDelivery] = []
            for try await (id, appId, url, payload, secret, previous, attempt, created, enabled) in try await connection.query(
                """
                WITH apps AS (
                    SELECT a::uuid AS app_id, room, place FROM unnest(\(apps.map(\.appId))::text[], \(apps.map(\.room))::int[]) WITH ORDINALITY AS x (a, room, place)
                ), due AS (
                    SELECT d.id FROM apps CROSS JOIN LATERAL (
                        SELECT id FROM webhook_deliveries w
                        WHERE w.app_id = apps.app_id AND w.state = 'pending' AND w.next_attempt_at <= now()
                        ORDER BY w.next_attempt_at LIMIT apps.room FOR UPDATE SKIP LOCKED
                    ) d
                    ORDER BY apps.place LIMIT \(limit)
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

    /// How many of the oldest due deliveries a claim reads to find the apps it serves first.
    public static let claimWindow = 1_000

    /// The apps a claim takes deliveries of, in the order given (oldest due delivery first), each
    /// with how many it may give: `perApp` less what the caller has of it in flight; those with
    /// no room left out; at most `limit`.
    static func claimOrder(_ candidates: [(appId: String, oldest: Date)], inFlight: [String: Int], perApp: Int, limit: Int) -> [(appId: String, room: Int)] {
        var apps: [(appId: String, room: Int)] = []
        for candidate in candidates where apps.count < limit {
            let room = perApp - (inFlight[candidate.appId] ?? 0)
            if room > 0 { apps.append((candidate.appId, room)) }
        }
        return apps
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
            DELETE FROM webhook_deliveries WHERE state <> 'pending' AND created_at < now() - make_interval(days => \(Limits.webhookLogDays)::int)
            """, logger: logger)
    }
}

// MARK: - Webhooks' writes

extension Store: WebhookStorage {
    public func withWebhooks<T: Sendable>(appId: String, _ work: @escaping @Sendable (any WebhookTransaction) async throws -> T) async throws -> T {
        try await withApp(appId) { try await work($0) }
    }
}

/// What the webhook use cases (`WebhookService`) read and write of one app in one PostgreSQL
/// transaction: SQL only.
extension PostgresContentTransaction: WebhookTransaction {
    func webhook(id: String) async throws -> Webhook? {
        guard UUIDText.normalize(id) != nil else { return nil }
        return try await Store.webhooks(from: connection.query(
            "SELECT \(unescaped: Store.webhookColumns) FROM webhooks WHERE app_id = \(appId)::uuid AND id = \(id)::uuid FOR UPDATE",
            logger: logger)).first
    }

    func webhookCount() async throws -> Int {
        try await store.number("SELECT count(*)::int FROM webhooks WHERE app_id = \(appId)::uuid", on: connection)
    }

    func insertWebhook(url: String, description: String, events: [String], secret: String, createdBy: String) async throws -> Webhook {
        try await Store.webhooks(from: connection.query(
            """
            INSERT INTO webhooks (id, app_id, url, description, events, secret, created_by)
            VALUES (\(UUIDText.random())::uuid, \(appId)::uuid, \(url), \(description), \(events), \(secret), \(createdBy))
            RETURNING \(unescaped: Store.webhookColumns)
            """, logger: logger)).first!
    }

    func updateWebhook(_ hook: Webhook) async throws -> Webhook {
        let updated = try await Store.webhooks(from: connection.query(
            """
            UPDATE webhooks SET url = \(hook.url), description = \(hook.description), events = \(hook.events), enabled = \(hook.enabled),
                revision = revision + 1, updated_at = now()
            WHERE app_id = \(appId)::uuid AND id = \(hook.id)::uuid RETURNING \(unescaped: Store.webhookColumns)
            """, logger: logger))
        guard let webhook = updated.first else { throw StoreError.notFound("no webhook \(hook.id) in this app") }
        return webhook
    }

    func deleteWebhook(id: String) async throws -> Bool {
        guard UUIDText.normalize(id) != nil else { return false }
        for try await _ in try await connection.query(
            "DELETE FROM webhooks WHERE app_id = \(appId)::uuid AND id = \(id)::uuid RETURNING 1", logger: logger
        ).decode(Int.self) { return true }
        return false
    }

    func rotateSecret(id: String, to secret: String, overlapSeconds: Int) async throws -> Webhook? {
        guard UUIDText.normalize(id) != nil else { return nil }
        return try await Store.webhooks(from: connection.query(
            """
            UPDATE webhooks SET previous_secret = secret, previous_secret_expires_at = now() + make_interval(secs => \(overlapSeconds)),
                secret = \(secret), revision = revision + 1, updated_at = now()
            WHERE app_id = \(appId)::uuid AND id = \(id)::uuid RETURNING \(unescaped: Store.webhookColumns)
            """, logger: logger)).first
    }

    func pendingDeliveries(webhookId: String, besides: String?) async throws -> Int {
        try await store.number(
            """
            SELECT count(*)::int FROM webhook_deliveries
            WHERE app_id = \(appId)::uuid AND webhook_id = \(webhookId)::uuid AND state = 'pending' AND id IS DISTINCT FROM \(besides)
            """, on: connection)
    }

    func insertPing(webhookId: String) async throws -> WebhookDelivery {
        try await Store.deliveries(from: connection.query(
            """
            INSERT INTO webhook_deliveries (id, app_id, webhook_id, event, payload)
            SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), a.id, \(webhookId)::uuid, 'ping',
                   jsonb_build_object('type', 'ping', 'timestamp', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                                      'data', jsonb_build_object('app', jsonb_build_object('id', a.id, 'slug', a.slug)))::text
            FROM apps a WHERE a.id = \(appId)::uuid
            RETURNING \(unescaped: Store.deliveryColumns)
            """, logger: logger)).first!
    }

    func redeliver(webhookId: String, id: String) async throws -> WebhookDelivery? {
        guard UUIDText.normalize(webhookId) != nil else { return nil }
        return try await Store.deliveries(from: connection.query(
            """
            UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = now(), created_at = now(), delivered_at = NULL
            WHERE app_id = \(appId)::uuid AND webhook_id = \(webhookId)::uuid AND id = \(id)
            RETURNING \(unescaped: Store.deliveryColumns)
            """, logger: logger)).first
    }
}
