-- Published versions of an app's rivers.json: immutable once written.

CREATE TABLE versions (
    app_id uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    number integer NOT NULL CHECK (number > 0),
    -- The exact bytes served, their sha256 (hex) and their gzip encoding.
    document bytea NOT NULL,
    sha256 text NOT NULL,
    gzip bytea NOT NULL,
    published_by text NOT NULL,
    note text NOT NULL DEFAULT '',
    -- Set when this version republished an earlier one (rollback).
    rollback_of integer,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, number)
);

-- The version the stable URL serves; it moves in the same transaction that writes a version.
ALTER TABLE apps ADD COLUMN current_version integer;

-- Versions are never changed or removed while their app exists.
CREATE FUNCTION versions_are_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM apps WHERE id = OLD.app_id) THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'published versions are immutable';
END;
$$;

CREATE TRIGGER versions_immutable BEFORE UPDATE ON versions
    FOR EACH ROW EXECUTE FUNCTION versions_are_immutable();
