-- Issue 28, together: every entry of an app's audit log is also an event for the app's live
-- streams (GET /api/v1/apps/{app}/events). NOTIFY is sent at commit, so a change rolled back
-- sends nothing, and every server process hears every app's changes (each passes an event on only
-- to the streams it holds, and only to callers who may see it). The entry's id is the event's id:
-- a stream that reconnects with Last-Event-ID gets what it missed from this table. The address
-- and request id stay out of the payload (only admins read them, in the audit log).
CREATE FUNCTION notify_app_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.app_id IS NOT NULL THEN
        PERFORM pg_notify('rivers_events', json_build_object(
            'id', NEW.id, 'app', NEW.app_id, 'at', to_char(NEW.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'actor', left(NEW.actor, 300), 'actor_kind', NEW.actor_kind,
            -- A person is logged by email; members who are not admins see their name instead.
            'actor_name', CASE WHEN NEW.actor_kind = 'user' THEN (SELECT left(name, 200) FROM users WHERE email = NEW.actor) END,
            'kind', NEW.kind, 'resource_id', left(NEW.resource_id, 200), 'action', NEW.action,
            'revision_before', NEW.revision_before, 'revision_after', NEW.revision_after, 'summary', left(NEW.summary, 500))::text);
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER audit_log_notify AFTER INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION notify_app_event();
