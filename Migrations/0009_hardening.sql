-- Issue 24, hardening round two.

-- Every slug under which an app's documents were ever public, and whose they were. Kept after a
-- purge (no foreign key): a CDN may keep a numbered URL (immutable, a year) of a purged app, so
-- such a slug is never given to another app, which would otherwise publish its own v1 at a URL
-- that caches still answer with the former owner's bytes.
CREATE TABLE published_slugs (
    slug text PRIMARY KEY,
    app_id uuid NOT NULL,
    first_published_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO published_slugs (slug, app_id)
    SELECT a.slug, a.id FROM apps a WHERE EXISTS (SELECT 1 FROM versions v WHERE v.app_id = a.id)
    ON CONFLICT DO NOTHING;
-- A former slug may have served documents before the rename: kept for its app too.
INSERT INTO published_slugs (slug, app_id)
    SELECT r.old_slug, r.app_id FROM slug_redirects r WHERE EXISTS (SELECT 1 FROM versions v WHERE v.app_id = r.app_id)
    ON CONFLICT DO NOTHING;

-- Who granted a token or an invitation: a member (revoked with what they granted when they are
-- removed or lose the role it needs) or a token (revoked with the token). NULL: the operator
-- (the command line), or granted before this migration.
ALTER TABLE api_tokens
    ADD COLUMN granted_by_user uuid REFERENCES users (id) ON DELETE CASCADE,
    ADD COLUMN granted_by_token uuid REFERENCES api_tokens (id) ON DELETE CASCADE;
ALTER TABLE links
    ADD COLUMN granted_by_user uuid REFERENCES users (id) ON DELETE CASCADE,
    ADD COLUMN granted_by_token uuid REFERENCES api_tokens (id) ON DELETE CASCADE;
CREATE INDEX api_tokens_granted_by_user ON api_tokens (app_id, granted_by_user) WHERE granted_by_user IS NOT NULL;
CREATE INDEX api_tokens_granted_by_token ON api_tokens (granted_by_token) WHERE granted_by_token IS NOT NULL;
CREATE INDEX links_granted_by_user ON links (app_id, granted_by_user) WHERE granted_by_user IS NOT NULL;
CREATE INDEX links_granted_by_token ON links (granted_by_token) WHERE granted_by_token IS NOT NULL;

-- Idempotency-Key: a write's answer, kept 24 hours per scope (an app's id, or '' for the routes
-- outside apps), caller and key, so that a client that repeats a write it is unsure of gets the
-- first answer instead of a second change. `committed` is set in the transaction of the write
-- itself: a key whose request died before committing can be used again; one that committed is
-- never carried out twice.
CREATE TABLE idempotency_keys (
    scope text NOT NULL,
    caller text NOT NULL,
    key text NOT NULL,
    request_hash text NOT NULL,
    claimed_at timestamptz NOT NULL DEFAULT now(),
    committed boolean NOT NULL DEFAULT false,
    -- The answer, once there is one (NULL body: an answer not kept, such as one holding a secret).
    status integer,
    headers jsonb,
    body bytea,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (scope, caller, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- The stored size of each screen and family (as the JSON text they are read as), so that the
-- app's size is summed without reading every body on each write (Limits.maxAppBytes).
ALTER TABLE screens ADD COLUMN body_bytes integer GENERATED ALWAYS AS (octet_length(body::text)) STORED;
ALTER TABLE families ADD COLUMN body_bytes integer GENERATED ALWAYS AS (octet_length(body::text)) STORED;

-- The audit log names the fields a change touched: a body's size is not one of them.
CREATE OR REPLACE FUNCTION audit_resource() RETURNS trigger LANGUAGE plpgsql AS $$
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
            coalesce(o -> 'body', '{}') || (o - 'body' - 'body_bytes' - 'revision' - 'updated_at' - 'position' - 'created_at'),
            coalesce(n -> 'body', '{}') || (n - 'body' - 'body_bytes' - 'revision' - 'updated_at' - 'position' - 'created_at'));
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
