-- Webhook secrets sealed at rest (WEBHOOK_SECRET_KEY). `rivers webhook seal-secrets` rewrites the
-- secrets stored before the key was set, with no new revision (the webhook itself is unchanged):
-- the audit log says `seal-secret` for such a write, not `rotate-secret`.
CREATE OR REPLACE FUNCTION audit_webhook() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM audit_append(NEW.app_id, 'webhook', NEW.id::text, 'create', NULL, NEW.revision, NEW.url);
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM audit_append(OLD.app_id, 'webhook', OLD.id::text, 'delete', OLD.revision, NULL, OLD.url);
    ELSE
        PERFORM audit_append(NEW.app_id, 'webhook', NEW.id::text,
            CASE WHEN NEW.revision = OLD.revision THEN 'seal-secret'
                 WHEN NEW.secret <> OLD.secret THEN 'rotate-secret' ELSE 'update' END, OLD.revision, NEW.revision, NEW.url);
    END IF;
    RETURN NULL;
END
$$;
