-- Issue 27, a draft on a device: preview links. Each is an unguessable URL that serves the app's
-- current draft as a rivers.json (no version is made), until it expires or is revoked. Only the
-- secret's SHA-256 is kept, as for tokens. A link goes with whoever made it: a member removed
-- from the app or demoted below editor, or a token revoked, takes their links along (the
-- foreign keys and Store.revokeGrants).
CREATE TABLE preview_links (
    id uuid PRIMARY KEY,
    app_id uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    secret_hash bytea NOT NULL UNIQUE,
    name text NOT NULL,
    created_by text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    last_used_at timestamptz,
    granted_by_user uuid REFERENCES users (id) ON DELETE CASCADE,
    granted_by_token uuid REFERENCES api_tokens (id) ON DELETE CASCADE
);
CREATE INDEX preview_links_app ON preview_links (app_id, created_at, id);
CREATE INDEX preview_links_granted_by_user ON preview_links (app_id, granted_by_user) WHERE granted_by_user IS NOT NULL;
CREATE INDEX preview_links_granted_by_token ON preview_links (granted_by_token) WHERE granted_by_token IS NOT NULL;

-- Made and revoked, in the audit log (a use is not a change).
CREATE FUNCTION audit_preview_link() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM audit_append(NEW.app_id, 'preview_link', NEW.id::text, 'create', NULL, NULL, NEW.name);
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM audit_append(OLD.app_id, 'preview_link', OLD.id::text, 'delete', NULL, NULL, OLD.name);
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER preview_links_audit AFTER INSERT OR DELETE ON preview_links FOR EACH ROW EXECUTE FUNCTION audit_preview_link();
