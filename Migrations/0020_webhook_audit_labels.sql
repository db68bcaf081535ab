-- The webhook audit trigger (0015) called every update that kept the revision `seal-secret`:
-- only sealing wrote one, but any other write of that kind would have been logged as a secret
-- sealed. Now a write that keeps the revision is `seal-secret` when it changed a secret, and
-- leaves no entry when it changed neither (nothing the audit log speaks of).
CREATE OR REPLACE FUNCTION audit_webhook() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM audit_append(NEW.app_id, 'webhook', NEW.id::text, 'create', NULL, NEW.revision, NEW.url);
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM audit_append(OLD.app_id, 'webhook', OLD.id::text, 'delete', OLD.revision, NULL, OLD.url);
    ELSIF NEW.revision = OLD.revision THEN
        IF NEW.secret IS DISTINCT FROM OLD.secret OR NEW.previous_secret IS DISTINCT FROM OLD.previous_secret THEN
            PERFORM audit_append(NEW.app_id, 'webhook', NEW.id::text, 'seal-secret', OLD.revision, NEW.revision, NEW.url);
        END IF;
    ELSE
        PERFORM audit_append(NEW.app_id, 'webhook', NEW.id::text,
            CASE WHEN NEW.secret <> OLD.secret THEN 'rotate-secret' ELSE 'update' END, OLD.revision, NEW.revision, NEW.url);
    END IF;
    RETURN NULL;
END
$$;
