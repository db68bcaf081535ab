-- Layouts and plugin manifests are capped in bytes as stored, as screens and families are (0009):
-- a layout at 256 KB and an app's layouts at 2 MB together (the list of layouts answers with them
-- all), a manifest at 128 KB and every version of every plugin of an app at 4 MB together (the
-- app's plugin registry parses them all). Rows stored before stay as they are; a write that would
-- break a cap rolls back.
ALTER TABLE layouts ADD COLUMN body_bytes integer GENERATED ALWAYS AS (octet_length(body::text)) STORED;
ALTER TABLE plugin_versions ADD COLUMN manifest_bytes integer GENERATED ALWAYS AS (octet_length(manifest::text)) STORED;
