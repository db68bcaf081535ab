-- The audit log's filters (`actor`, `kind` and `id`) read by index: a filter matching rarely
-- walked an app's whole log from its newest entry (its only index was by app and id), and an
-- app's log only grows.
CREATE INDEX audit_log_app_actor ON audit_log (app_id, actor, id);
CREATE INDEX audit_log_app_kind ON audit_log (app_id, kind, resource_id, id);
