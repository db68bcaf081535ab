-- Audit log retention (AUDIT_LOG_DAYS): entries older than the operator keeps may be removed by
-- the server's own trimming, which sets rivers.trimming for its transaction. Otherwise entries
-- are still never changed, and removed only with their app (`rivers app purge`).
CREATE OR REPLACE FUNCTION audit_log_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND (current_setting('rivers.purging', true) = 'on' OR current_setting('rivers.trimming', true) = 'on') THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'audit log entries are never changed or removed' USING ERRCODE = 'restrict_violation';
END
$$;
