-- A slug must never be taken for an app's id: apps are found by id (a UUID) or by slug, by the
-- kind of key given. NOT VALID: the rule holds for every app created or renamed from now on; an
-- older UUID-shaped slug (the API refused none before) stays readable by its id.
ALTER TABLE apps ADD CONSTRAINT apps_slug_not_uuid
    CHECK (slug !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$') NOT VALID;
