-- Teams (issue 12): people with accounts, their sessions and roles per app, one-time links,
-- API tokens with a role, archived apps, and an append-only audit log written by triggers in the
-- same transaction as each change.

CREATE TABLE users (
    id uuid PRIMARY KEY,
    -- Kept in lower case: one account per address, however it is typed.
    email text NOT NULL UNIQUE CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 254),
    name text NOT NULL DEFAULT '',
    -- bcrypt; NULL until the person sets a password through a one-time link.
    password_hash text,
    is_admin boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    password_changed_at timestamptz
);

-- Server-side sessions. The cookie holds a random secret; only its sha256 is stored.
CREATE TABLE sessions (
    secret_hash bytea PRIMARY KEY,
    -- What lists and revocations name (the secret never leaves the cookie).
    id uuid NOT NULL UNIQUE,
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- Sent back in X-CSRF-Token by the editor on every cookie-authenticated write.
    csrf_token text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz NOT NULL DEFAULT now(),
    user_agent text NOT NULL DEFAULT '',
    address text NOT NULL DEFAULT ''
);
CREATE INDEX sessions_user ON sessions (user_id);

CREATE TABLE memberships (
    app_id uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role text NOT NULL CHECK (role IN ('viewer', 'editor', 'publisher', 'admin')),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, user_id)
);
CREATE INDEX memberships_user ON memberships (user_id);

-- One-time links: setting a password (new account, reset) or accepting an invitation to an app.
CREATE TABLE links (
    secret_hash bytea PRIMARY KEY,
    id uuid NOT NULL UNIQUE,
    kind text NOT NULL CHECK (kind IN ('set-password', 'invitation')),
    email text NOT NULL,
    app_id uuid REFERENCES apps (id) ON DELETE CASCADE,
    role text CHECK (role IN ('viewer', 'editor', 'publisher', 'admin')),
    created_by text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    used_at timestamptz,
    CHECK (kind = 'set-password' OR (app_id IS NOT NULL AND role IS NOT NULL))
);
CREATE INDEX links_app ON links (app_id) WHERE app_id IS NOT NULL;

-- Failed sign-ins, by account and by address, for throttling (rows older than a day are dropped).
-- An attempt is written before its password is checked, so concurrent guesses count each other,
-- and removed again if it succeeds.
CREATE TABLE sign_in_failures (
    id bigserial PRIMARY KEY,
    key text NOT NULL,
    at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sign_in_failures_key ON sign_in_failures (key, at);
CREATE INDEX sign_in_failures_at ON sign_in_failures (at);

-- Tokens get a name, a role, an optional expiry and who made them; the existing ones keep full
-- rights over their app.
ALTER TABLE api_tokens
    ADD COLUMN role text NOT NULL DEFAULT 'admin' CHECK (role IN ('viewer', 'editor', 'publisher', 'admin')),
    ADD COLUMN expires_at timestamptz,
    ADD COLUMN created_by text NOT NULL DEFAULT '',
    ADD COLUMN last_used_at timestamptz;
UPDATE api_tokens SET label = 'created with the app' WHERE label = '';
ALTER TABLE api_tokens RENAME COLUMN label TO name;

-- An archived app keeps everything; its public URLs answer 410 until an instance admin restores it.
ALTER TABLE apps ADD COLUMN archived_at timestamptz;

-- A changed slug: the old public URL answers 301 to the new one until `expires_at`.
CREATE TABLE slug_redirects (
    old_slug text PRIMARY KEY,
    app_id uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    expires_at timestamptz NOT NULL
);

-- The audit log: one entry per change, appended by the triggers below in the change's own
-- transaction (a change rolled back leaves none). Who, from where and which request come from
-- transaction-local settings the server sets (rivers.actor, rivers.actor_kind,
-- rivers.request_id, rivers.address); a change made outside a request is the system's.
CREATE TABLE audit_log (
    id bigserial PRIMARY KEY,
    -- NULL for what concerns no app (sign-ins, accounts).
    app_id uuid,
    at timestamptz NOT NULL DEFAULT now(),
    actor text NOT NULL,
    actor_kind text NOT NULL CHECK (actor_kind IN ('user', 'token', 'system', 'anonymous')),
    kind text NOT NULL,
    resource_id text NOT NULL DEFAULT '',
    action text NOT NULL,
    revision_before integer,
    revision_after integer,
    summary text NOT NULL DEFAULT '',
    request_id text NOT NULL DEFAULT '',
    address text NOT NULL DEFAULT ''
);
CREATE INDEX audit_log_app ON audit_log (app_id, id);
CREATE INDEX audit_log_instance ON audit_log (id) WHERE app_id IS NULL;

-- Entries are never changed; they are removed only with their app, by `rivers app purge`, which
-- sets rivers.purging for its transaction.
CREATE FUNCTION audit_log_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND current_setting('rivers.purging', true) = 'on' THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'audit log entries are never changed or removed' USING ERRCODE = 'restrict_violation';
END
$$;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_is_append_only();

-- Appends one entry. The settings name who is acting; without them it is the system. A purge
-- records nothing (what it removes takes its entries along).
CREATE FUNCTION audit_append(app uuid, kind text, resource text, action text, before integer, after integer, summary text)
RETURNS void LANGUAGE sql AS $$
    INSERT INTO audit_log (app_id, actor, actor_kind, kind, resource_id, action, revision_before, revision_after, summary, request_id, address)
    SELECT app, coalesce(nullif(current_setting('rivers.actor', true), ''), 'system'),
           coalesce(nullif(current_setting('rivers.actor_kind', true), ''), 'system'),
           kind, coalesce(resource, ''), action, before, after, left(coalesce(summary, ''), 500),
           coalesce(current_setting('rivers.request_id', true), ''), coalesce(current_setting('rivers.address', true), '')
    WHERE coalesce(current_setting('rivers.purging', true), '') <> 'on';
$$;

-- The top-level fields that differ between two JSON objects, as "a, b, c".
CREATE FUNCTION audit_changed_fields(old jsonb, new jsonb) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(string_agg(key, ', ' ORDER BY key), '')
    FROM (SELECT key FROM jsonb_each(coalesce(old, '{}')) UNION SELECT key FROM jsonb_each(coalesce(new, '{}'))) AS keys
    WHERE old -> key IS DISTINCT FROM new -> key;
$$;

-- Families, layouts, screens and plugins: create, update (with the fields changed), reorder
-- (only the position moved) and delete, with revisions before and after.
CREATE FUNCTION audit_resource() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    o jsonb := CASE WHEN TG_OP <> 'INSERT' THEN to_jsonb(OLD) END;
    n jsonb := CASE WHEN TG_OP <> 'DELETE' THEN to_jsonb(NEW) END;
    r jsonb := coalesce(n, o);
    kind text := CASE TG_TABLE_NAME WHEN 'families' THEN 'family' WHEN 'layouts' THEN 'layout'
                                    WHEN 'screens' THEN 'screen' ELSE 'plugin' END;
    resource text := coalesce(r ->> 'id', r ->> 'identifier');
    changed text;
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM audit_append((r ->> 'app_id')::uuid, kind, resource, 'create', NULL, (n ->> 'revision')::integer, r #>> '{body,name}');
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM audit_append((r ->> 'app_id')::uuid, kind, resource, 'delete', (o ->> 'revision')::integer, NULL, o #>> '{body,name}');
    ELSE
        changed := audit_changed_fields(
            coalesce(o -> 'body', '{}') || (o - 'body' - 'revision' - 'updated_at' - 'position' - 'created_at'),
            coalesce(n -> 'body', '{}') || (n - 'body' - 'revision' - 'updated_at' - 'position' - 'created_at'));
        IF changed = '' THEN
            IF o -> 'revision' IS DISTINCT FROM n -> 'revision' THEN
                -- A new revision with no field of its own changed (a plugin manifest replaced in place).
                PERFORM audit_append((r ->> 'app_id')::uuid, kind, resource, 'update', (o ->> 'revision')::integer, (n ->> 'revision')::integer, 'revision');
            ELSIF o -> 'position' IS DISTINCT FROM n -> 'position' THEN
                PERFORM audit_append((r ->> 'app_id')::uuid, kind, resource, 'reorder', (o ->> 'revision')::integer, (n ->> 'revision')::integer, '');
            END IF;
            RETURN NULL;
        END IF;
        PERFORM audit_append((r ->> 'app_id')::uuid, kind, resource, 'update', (o ->> 'revision')::integer, (n ->> 'revision')::integer, changed);
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER families_audit AFTER INSERT OR UPDATE OR DELETE ON families FOR EACH ROW EXECUTE FUNCTION audit_resource();
CREATE TRIGGER layouts_audit AFTER INSERT OR UPDATE OR DELETE ON layouts FOR EACH ROW EXECUTE FUNCTION audit_resource();
CREATE TRIGGER screens_audit AFTER INSERT OR UPDATE OR DELETE ON screens FOR EACH ROW EXECUTE FUNCTION audit_resource();
CREATE TRIGGER plugins_audit AFTER INSERT OR UPDATE OR DELETE ON plugins FOR EACH ROW EXECUTE FUNCTION audit_resource();

-- A published version: publish, or rollback when it republishes an earlier one.
CREATE FUNCTION audit_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM audit_append(NEW.app_id, 'version', NEW.number::text,
        CASE WHEN NEW.rollback_of IS NULL THEN 'publish' ELSE 'rollback' END, NULL, NEW.number,
        CASE WHEN NEW.rollback_of IS NULL THEN NEW.note ELSE 'to version ' || NEW.rollback_of || coalesce(': ' || nullif(NEW.note, ''), '') END);
    RETURN NULL;
END
$$;
CREATE TRIGGER versions_audit AFTER INSERT ON versions FOR EACH ROW EXECUTE FUNCTION audit_version();

-- Members: added, role changed, removed (named by email).
CREATE FUNCTION audit_membership() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    r memberships := CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
    who text := (SELECT email FROM users WHERE id = r.user_id);
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.role = NEW.role THEN RETURN NULL; END IF;
    PERFORM audit_append(r.app_id, 'member', r.user_id::text,
        CASE TG_OP WHEN 'INSERT' THEN 'create' WHEN 'UPDATE' THEN 'update' ELSE 'delete' END, NULL, NULL,
        coalesce(who, '') || CASE TG_OP WHEN 'UPDATE' THEN ': ' || OLD.role || ' → ' || NEW.role
                                        WHEN 'INSERT' THEN ': ' || NEW.role ELSE '' END);
    RETURN NULL;
END
$$;
CREATE TRIGGER memberships_audit AFTER INSERT OR UPDATE OR DELETE ON memberships FOR EACH ROW EXECUTE FUNCTION audit_membership();

-- Tokens: created and revoked (last use is not a change).
CREATE FUNCTION audit_token() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM audit_append(NEW.app_id, 'token', NEW.id::text, 'create', NULL, NULL, NEW.name || ': ' || NEW.role);
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM audit_append(OLD.app_id, 'token', OLD.id::text, 'delete', NULL, NULL, OLD.name);
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER api_tokens_audit AFTER INSERT OR DELETE ON api_tokens FOR EACH ROW EXECUTE FUNCTION audit_token();

-- Invitations made and revoked.
CREATE FUNCTION audit_link() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    r links := CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
BEGIN
    IF r.kind <> 'invitation' THEN RETURN NULL; END IF;
    IF TG_OP = 'UPDATE' AND (OLD.used_at IS NOT DISTINCT FROM NEW.used_at) THEN RETURN NULL; END IF;
    PERFORM audit_append(r.app_id, 'invitation', r.id::text,
        CASE TG_OP WHEN 'INSERT' THEN 'create' WHEN 'UPDATE' THEN 'accept' ELSE 'delete' END, NULL, NULL, r.email || ': ' || r.role);
    RETURN NULL;
END
$$;
CREATE TRIGGER links_audit AFTER INSERT OR UPDATE OR DELETE ON links FOR EACH ROW EXECUTE FUNCTION audit_link();

-- App settings: created, renamed, slug changed, archived, restored.
CREATE FUNCTION audit_app() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed text;
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM audit_append(NEW.id, 'app', NEW.id::text, 'create', NULL, NULL, NEW.slug);
        RETURN NULL;
    END IF;
    IF OLD.archived_at IS NULL AND NEW.archived_at IS NOT NULL THEN
        PERFORM audit_append(NEW.id, 'app', NEW.id::text, 'archive', NULL, NULL, NEW.slug);
    ELSIF OLD.archived_at IS NOT NULL AND NEW.archived_at IS NULL THEN
        PERFORM audit_append(NEW.id, 'app', NEW.id::text, 'restore', NULL, NULL, NEW.slug);
    END IF;
    changed := audit_changed_fields(jsonb_build_object('name', OLD.name, 'slug', OLD.slug), jsonb_build_object('name', NEW.name, 'slug', NEW.slug));
    IF changed <> '' THEN
        PERFORM audit_append(NEW.id, 'app', NEW.id::text, 'update', NULL, NULL,
            changed || CASE WHEN OLD.slug <> NEW.slug THEN ' (' || OLD.slug || ' → ' || NEW.slug || ')' ELSE '' END);
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER apps_audit AFTER INSERT OR UPDATE ON apps FOR EACH ROW EXECUTE FUNCTION audit_app();
