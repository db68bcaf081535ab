-- Plugin values as the plugins' own code reads them (docs/spec/plugin-values.md): one form per
-- field type, decided by the manifest (RiversCore ManifestField.valueForm):
--   switch, checkbox: a JSON boolean; "1"/"0" where the manifest states its value as "1"/"0";
--     never "true"/"false" strings (migration 0005 wrote them where the manifest did);
--   number_input: a number where the manifest's initial value is a JSON number, else the digits
--     as a string;
--   tag_select: one plain value (earlier versions wrote a one-element array).
-- Stored manifests are left as they are (they are read with the same rule). Values that fit no
-- form (a tag_select array of several values, text in a number) are left for validation to report.
-- Values of plugin screens' sections and of ui_component plugin components' styles, in screens
-- and layouts, are rewritten; revisions are kept, like migration 0005.

-- Each switch, checkbox, number_input and tag_select key of a manifest, at any depth, with its form.
CREATE FUNCTION rivers_0010_forms(m jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(jsonb_object_agg(key, form), '{}'::jsonb) FROM (
        SELECT DISTINCT ON (f->>'key') f->>'key' AS key,
            CASE
                WHEN f->>'type' IN ('switch', 'checkbox') THEN
                    CASE WHEN jsonb_typeof(iv) = 'string' AND btrim(iv #>> '{}') IN ('1', '0') THEN 'one_or_zero' ELSE 'boolean' END
                WHEN f->>'type' = 'number_input' THEN
                    CASE WHEN jsonb_typeof(iv) = 'number' THEN 'number' ELSE 'number_text' END
                ELSE 'choice'
            END AS form
        FROM jsonb_path_query(m, 'lax $.**') AS f,
             LATERAL (SELECT CASE WHEN f ? 'initial_value' THEN f->'initial_value' ELSE f->'default' END AS iv) AS given
        WHERE jsonb_typeof(f) = 'object' AND f ? 'key'
          AND f->>'type' IN ('switch', 'checkbox', 'number_input', 'tag_select')
        ORDER BY f->>'key'
    ) AS fields
$$;

-- One value written in its form.
CREATE FUNCTION rivers_0010_value(v jsonb, form text) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE
        WHEN form IN ('boolean', 'one_or_zero') THEN
            CASE WHEN state IS NULL THEN v
                 WHEN form = 'boolean' THEN to_jsonb(state)
                 ELSE to_jsonb(CASE WHEN state THEN '1' ELSE '0' END) END
        WHEN form = 'number' AND jsonb_typeof(v) = 'string'
             AND btrim(v #>> '{}') ~ '^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$' THEN to_jsonb(btrim(v #>> '{}')::numeric)
        WHEN form = 'number_text' AND jsonb_typeof(v) = 'number' THEN to_jsonb(v #>> '{}')
        WHEN form = 'choice' AND jsonb_typeof(v) = 'array' AND jsonb_array_length(v) <= 1 THEN coalesce(v->0, '""'::jsonb)
        ELSE v
    END
    FROM (SELECT CASE
        WHEN jsonb_typeof(v) = 'boolean' THEN (v #>> '{}')::boolean
        WHEN jsonb_typeof(v) = 'string' AND lower(btrim(v #>> '{}')) IN ('true', '1') THEN true
        WHEN jsonb_typeof(v) = 'string' AND lower(btrim(v #>> '{}')) IN ('false', '0') THEN false
        WHEN jsonb_typeof(v) = 'number' AND (v #>> '{}')::numeric IN (0, 1) THEN (v #>> '{}')::numeric = 1
        ELSE NULL
    END AS state) AS read
$$;

-- `vals` with each key that has a form written in it.
CREATE FUNCTION rivers_0010_values(vals jsonb, forms jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN jsonb_typeof(vals) <> 'object' THEN vals ELSE
        coalesce((SELECT jsonb_object_agg(k, CASE WHEN forms ? k THEN rivers_0010_value(v, forms->>k) ELSE v END)
                  FROM jsonb_each(vals) AS e(k, v)), '{}'::jsonb)
    END
$$;

-- A list of components with the styles of ui_component plugin components rewritten, groups included.
CREATE FUNCTION rivers_0010_components(list jsonb, app uuid) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
DECLARE
    result jsonb := '[]'::jsonb;
    c jsonb;
    manifest jsonb;
BEGIN
    IF jsonb_typeof(list) <> 'array' THEN RETURN list; END IF;
    FOR c IN SELECT e FROM jsonb_array_elements(list) WITH ORDINALITY AS t(e, i) ORDER BY i LOOP
        IF jsonb_typeof(c) = 'object' THEN
            SELECT pv.manifest INTO manifest
            FROM plugins p JOIN plugin_versions pv
              ON pv.app_id = p.app_id AND pv.identifier = p.identifier AND pv.manifest_version = p.current_version
            WHERE p.app_id = app AND p.identifier = c->>'component_type';
            IF manifest IS NOT NULL AND c ? 'styles' THEN
                c := jsonb_set(c, '{styles}', rivers_0010_values(c->'styles', rivers_0010_forms(manifest)));
            END IF;
            IF c ? 'ui_components' THEN
                c := jsonb_set(c, '{ui_components}', rivers_0010_components(c->'ui_components', app));
            END IF;
        END IF;
        result := result || jsonb_build_array(c);
    END LOOP;
    RETURN result;
END
$$;

-- A plugin screen's sections, by the manifest version the screen uses.
CREATE FUNCTION rivers_0010_sections(body jsonb, forms jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
    SELECT body || coalesce((SELECT jsonb_object_agg(section, rivers_0010_values(body->section, forms))
                             FROM unnest(ARRAY['styles', 'general', 'data', 'rules', 'advertising']) AS s(section)
                             WHERE body ? section), '{}'::jsonb)
$$;

UPDATE screens s SET body = changed.body
FROM (
    SELECT s2.app_id, s2.id, rivers_0010_sections(s2.body, rivers_0010_forms(pv.manifest)) AS body
    FROM screens s2
    JOIN plugins p ON p.app_id = s2.app_id AND p.identifier = s2.body->>'type'
    JOIN plugin_versions pv ON pv.app_id = p.app_id AND pv.identifier = p.identifier
        AND pv.manifest_version = coalesce(s2.body->>'plugin_version', p.current_version)
) AS changed
WHERE changed.app_id = s.app_id AND changed.id = s.id AND changed.body IS DISTINCT FROM s.body;

-- Components of ui_component plugins, on screens and in layouts.
UPDATE screens SET body = jsonb_set(body, '{ui_components}', rivers_0010_components(body->'ui_components', app_id))
WHERE body ? 'ui_components'
  AND EXISTS (SELECT 1 FROM plugins p WHERE p.app_id = screens.app_id)
  AND jsonb_set(body, '{ui_components}', rivers_0010_components(body->'ui_components', app_id)) IS DISTINCT FROM body;
UPDATE layouts SET body = jsonb_set(body, '{ui_components}', rivers_0010_components(body->'ui_components', app_id))
WHERE body ? 'ui_components'
  AND EXISTS (SELECT 1 FROM plugins p WHERE p.app_id = layouts.app_id)
  AND jsonb_set(body, '{ui_components}', rivers_0010_components(body->'ui_components', app_id)) IS DISTINCT FROM body;

DROP FUNCTION rivers_0010_sections(jsonb, jsonb);
DROP FUNCTION rivers_0010_components(jsonb, uuid);
DROP FUNCTION rivers_0010_values(jsonb, jsonb);
DROP FUNCTION rivers_0010_value(jsonb, text);
DROP FUNCTION rivers_0010_forms(jsonb);
