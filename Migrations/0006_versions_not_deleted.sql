-- Published versions are immutable: the trigger refused UPDATE only; it refuses DELETE too. Its
-- function already lets a version go with its app (ON DELETE CASCADE removes the app row first).
DROP TRIGGER versions_immutable ON versions;
CREATE TRIGGER versions_immutable BEFORE UPDATE OR DELETE ON versions
    FOR EACH ROW EXECUTE FUNCTION versions_are_immutable();
