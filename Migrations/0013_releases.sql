-- Issue 27, releases: channels, app-version rules, scheduled promotions.

-- A channel is a named pointer to a published version, served at
-- /rivers/{slug}/channels/{name}/rivers.json. `production` is a row too, kept equal to
-- apps.current_version (which the app's main URL serves) in the same transaction that moves it.
CREATE TABLE channels (
    app_id uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    name text NOT NULL CHECK (name ~ '^[a-z][a-z0-9_-]{0,31}$'),
    version integer NOT NULL,
    revision integer NOT NULL DEFAULT 1,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, name),
    FOREIGN KEY (app_id, version) REFERENCES versions (app_id, number)
);

-- Every move of every channel, newest last: a channel's history and what its rollback returns to.
CREATE TABLE channel_moves (
    id bigserial PRIMARY KEY,
    app_id uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    channel text NOT NULL,
    version integer NOT NULL,
    previous_version integer,
    moved_by text NOT NULL DEFAULT '',
    note text NOT NULL DEFAULT '',
    -- Made by writing a new version (a publish or a rollback): its `version` entry in the audit
    -- log says so already, when the channel is production.
    with_new_version boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX channel_moves_channel ON channel_moves (app_id, channel, id);
CREATE INDEX channel_moves_app ON channel_moves (app_id, id);

-- Production as it is today: one row per app with a current version, one move each.
INSERT INTO channels (app_id, name, version)
    SELECT id, 'production', current_version FROM apps WHERE current_version IS NOT NULL;
INSERT INTO channel_moves (app_id, channel, version, moved_by, note)
    SELECT id, 'production', current_version, 'system', 'production as it was when channels came' FROM apps
    WHERE current_version IS NOT NULL;

-- Which app versions get what: an ordered list, first match wins (checked by the server).
CREATE TABLE release_rules (
    app_id uuid PRIMARY KEY REFERENCES apps (id) ON DELETE CASCADE,
    rules jsonb NOT NULL DEFAULT '[]',
    revision integer NOT NULL DEFAULT 1,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- A promotion due at a time: fired once (fired_at) by whichever process takes its row first
-- (FOR UPDATE SKIP LOCKED), or cancelled. `late` says it fired well after its time (every
-- process was down then).
CREATE TABLE schedules (
    id uuid PRIMARY KEY,
    app_id uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    channel text NOT NULL,
    version integer NOT NULL,
    due_at timestamptz NOT NULL,
    created_by text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now(),
    fired_at timestamptz,
    late boolean NOT NULL DEFAULT false,
    cancelled_at timestamptz,
    FOREIGN KEY (app_id, version) REFERENCES versions (app_id, number)
);
CREATE INDEX schedules_due ON schedules (due_at) WHERE fired_at IS NULL AND cancelled_at IS NULL;
CREATE INDEX schedules_app ON schedules (app_id, due_at);

-- A schedule acts as itself in the audit log.
ALTER TABLE audit_log DROP CONSTRAINT audit_log_actor_kind_check;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_actor_kind_check
    CHECK (actor_kind IN ('user', 'token', 'system', 'anonymous', 'schedule'));

-- Audited: channel moves, rule changes, schedules made, cancelled and fired.
CREATE FUNCTION audit_channel_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.with_new_version AND NEW.channel = 'production' THEN
        RETURN NULL;
    END IF;
    PERFORM audit_append(NEW.app_id, 'channel', NEW.channel, 'promote', NEW.previous_version, NEW.version,
        'version ' || NEW.version || coalesce(' (was ' || NEW.previous_version || ')', '')
        || CASE WHEN NEW.note <> '' THEN ': ' || NEW.note ELSE '' END);
    RETURN NULL;
END
$$;
CREATE TRIGGER channel_moves_audit AFTER INSERT ON channel_moves FOR EACH ROW EXECUTE FUNCTION audit_channel_move();

CREATE FUNCTION audit_channel() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM audit_append(OLD.app_id, 'channel', OLD.name, 'delete', NULL, NULL, OLD.name);
    RETURN NULL;
END
$$;
CREATE TRIGGER channels_audit AFTER DELETE ON channels FOR EACH ROW EXECUTE FUNCTION audit_channel();

CREATE FUNCTION audit_release_rules() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM audit_append(NEW.app_id, 'release_rules', '', 'update',
        CASE WHEN TG_OP = 'UPDATE' THEN OLD.revision END, NEW.revision, jsonb_array_length(NEW.rules) || ' rule(s)');
    RETURN NULL;
END
$$;
CREATE TRIGGER release_rules_audit AFTER INSERT OR UPDATE ON release_rules FOR EACH ROW EXECUTE FUNCTION audit_release_rules();

CREATE FUNCTION audit_schedule() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM audit_append(NEW.app_id, 'schedule', NEW.id::text, 'create', NULL, NULL,
            NEW.channel || ' → version ' || NEW.version || ' at ' || to_char(NEW.due_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'));
    ELSIF NEW.cancelled_at IS NOT NULL AND OLD.cancelled_at IS NULL THEN
        PERFORM audit_append(NEW.app_id, 'schedule', NEW.id::text, 'cancel', NULL, NULL, NEW.channel || ' → version ' || NEW.version);
    ELSIF NEW.fired_at IS NOT NULL AND OLD.fired_at IS NULL THEN
        PERFORM audit_append(NEW.app_id, 'schedule', NEW.id::text, 'fire', NULL, NULL,
            NEW.channel || ' → version ' || NEW.version
            || CASE WHEN NEW.late THEN ' (late: no server was running at its time, '
                    || to_char(NEW.due_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') || ')' ELSE '' END);
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER schedules_audit AFTER INSERT OR UPDATE ON schedules FOR EACH ROW EXECUTE FUNCTION audit_schedule();
