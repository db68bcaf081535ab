-- Issue 27, webhooks: per-app endpoints told of publishes, promotions, rollbacks, schedules fired
-- and the app archived, signed per the Standard Webhooks spec. A delivery is an outbox row
-- written by a trigger in the transaction of the change itself: none is lost, none is sent for a
-- change that rolled back. The server processes deliver them (webhook_deliveries, claimed with
-- SKIP LOCKED) and keep a log of every attempt.

-- What moved a channel: a publish (a new version), a rollback, a promotion (PUT or a channel's
-- rollback), or a schedule.
ALTER TABLE channel_moves ADD COLUMN cause text NOT NULL DEFAULT 'promote'
    CHECK (cause IN ('publish', 'rollback', 'promote', 'schedule'));
UPDATE channel_moves SET cause = 'publish' WHERE with_new_version;

CREATE TABLE webhooks (
    id uuid PRIMARY KEY,
    app_id uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    url text NOT NULL,
    description text NOT NULL DEFAULT '',
    events text[] NOT NULL,
    enabled boolean NOT NULL DEFAULT true,
    -- The signing secret (`whsec_` and base64): the server needs it to sign, so it is kept as is.
    secret text NOT NULL,
    -- After a rotation the previous secret signs too, until it expires (receivers switch over).
    previous_secret text,
    previous_secret_expires_at timestamptz,
    revision integer NOT NULL DEFAULT 1,
    created_by text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_app ON webhooks (app_id, created_at, id);

CREATE TABLE webhook_deliveries (
    -- The message id sent as `webhook-id` (receivers use it to drop duplicates).
    id text PRIMARY KEY,
    app_id uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    webhook_id uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event text NOT NULL,
    payload text NOT NULL,
    state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    last_status integer,
    last_error text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now(),
    delivered_at timestamptz
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, created_at DESC);

CREATE TABLE webhook_attempts (
    delivery_id text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    number integer NOT NULL,
    at timestamptz NOT NULL DEFAULT now(),
    status integer,
    error text NOT NULL DEFAULT '',
    duration_ms integer NOT NULL DEFAULT 0,
    PRIMARY KEY (delivery_id, number)
);

-- One outbox row per enabled webhook of the app that takes `event`.
CREATE FUNCTION webhook_enqueue(app uuid, event text, data jsonb) RETURNS void LANGUAGE sql AS $$
    INSERT INTO webhook_deliveries (id, app_id, webhook_id, event, payload)
    SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), app, w.id, event,
           jsonb_build_object('type', event, 'timestamp', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'data', data)::text
    FROM webhooks w WHERE w.app_id = app AND w.enabled AND event = ANY (w.events)
      AND coalesce(current_setting('rivers.purging', true), '') <> 'on';
$$;

CREATE FUNCTION webhook_channel_move() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    a record;
BEGIN
    SELECT id, slug INTO a FROM apps WHERE id = NEW.app_id;
    PERFORM webhook_enqueue(NEW.app_id,
        CASE NEW.cause WHEN 'publish' THEN 'version.published' WHEN 'rollback' THEN 'channel.rolled_back'
                       WHEN 'schedule' THEN 'schedule.fired' ELSE 'channel.promoted' END,
        jsonb_build_object(
            'app', jsonb_build_object('id', a.id, 'slug', a.slug), 'channel', NEW.channel, 'version', NEW.version,
            'previous_version', NEW.previous_version, 'note', NEW.note, 'by', NEW.moved_by,
            'path', CASE WHEN NEW.channel = 'production' THEN '/rivers/' || a.slug || '/rivers.json'
                         ELSE '/rivers/' || a.slug || '/channels/' || NEW.channel || '/rivers.json' END,
            -- What a CDN should purge (the tags public answers carry, see Surrogate-Key).
            'purge_tags', jsonb_build_array('app-' || a.id || '-channel-' || NEW.channel, 'app-' || a.id || '-rules')));
    RETURN NULL;
END
$$;
CREATE TRIGGER channel_moves_webhooks AFTER INSERT ON channel_moves FOR EACH ROW EXECUTE FUNCTION webhook_channel_move();

CREATE FUNCTION webhook_app_archived() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.archived_at IS NULL AND NEW.archived_at IS NOT NULL THEN
        PERFORM webhook_enqueue(NEW.id, 'app.archived', jsonb_build_object(
            'app', jsonb_build_object('id', NEW.id, 'slug', NEW.slug), 'purge_tags', jsonb_build_array('app-' || NEW.id)));
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER apps_webhooks AFTER UPDATE ON apps FOR EACH ROW EXECUTE FUNCTION webhook_app_archived();

-- Webhooks made, changed, rotated and removed, in the audit log.
CREATE FUNCTION audit_webhook() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM audit_append(NEW.app_id, 'webhook', NEW.id::text, 'create', NULL, NEW.revision, NEW.url);
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM audit_append(OLD.app_id, 'webhook', OLD.id::text, 'delete', OLD.revision, NULL, OLD.url);
    ELSE
        PERFORM audit_append(NEW.app_id, 'webhook', NEW.id::text,
            CASE WHEN NEW.secret <> OLD.secret THEN 'rotate-secret' ELSE 'update' END, OLD.revision, NEW.revision, NEW.url);
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER webhooks_audit AFTER INSERT OR UPDATE OR DELETE ON webhooks FOR EACH ROW EXECUTE FUNCTION audit_webhook();
