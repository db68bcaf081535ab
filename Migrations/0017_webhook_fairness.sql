-- Webhook deliveries shared fairly between apps (one app's backlog or slow receiver must not hold
-- back another's): the deliverer claims per app (at most a few of each app at once, the apps
-- whose deliveries have waited longest first), so it needs an app's due deliveries by time.
CREATE INDEX webhook_deliveries_due_by_app ON webhook_deliveries (app_id, next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_pending_by_webhook ON webhook_deliveries (webhook_id) WHERE state = 'pending';

-- Events, like pings, wait at most 1,000 to a webhook: past that an event's delivery is logged
-- as failed, not sent (it can be redelivered once the backlog is through), so that no app can
-- queue deliveries without end.
CREATE OR REPLACE FUNCTION webhook_enqueue(app uuid, event text, data jsonb) RETURNS void LANGUAGE sql AS $$
    INSERT INTO webhook_deliveries (id, app_id, webhook_id, event, payload, state, last_error)
    SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), app, w.id, event,
           jsonb_build_object('type', event, 'timestamp', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'data', data)::text,
           CASE WHEN waiting.n >= 1000 THEN 'failed' ELSE 'pending' END,
           CASE WHEN waiting.n >= 1000 THEN 'not sent: 1000 deliveries of this webhook were waiting; redeliver it once they are through' ELSE '' END
    FROM webhooks w
    CROSS JOIN LATERAL (SELECT count(*) AS n FROM (
        SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.state = 'pending' LIMIT 1000) AS pending) AS waiting
    WHERE w.app_id = app AND w.enabled AND event = ANY (w.events)
      AND coalesce(current_setting('rivers.purging', true), '') <> 'on';
$$;
