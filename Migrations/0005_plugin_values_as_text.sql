-- Plugin values keep the JSON type of their manifest's initial value: plugin code reads a
-- number_input's or a switch's value as a string when the manifest writes "18" or "true", and a
-- JSON number or boolean there reads as nothing (or throws). Until now such values were rewritten
-- to numbers and booleans, and stored manifests with them, so the type they were written with is
-- lost. Real manifests write these initial values as strings; stored ones become strings again:
-- the initial values (and legacy defaults) of number_input, switch and checkbox fields in every
-- stored manifest, and the values of those fields on plugin screens and in the styles of
-- ui_component plugin components, in screens and layouts. Text and other values are untouched.

CREATE FUNCTION rivers_0005_manifest(m jsonb) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    result jsonb;
    k text;
    v jsonb;
BEGIN
    IF jsonb_typeof(m) = 'array' THEN
        SELECT coalesce(jsonb_agg(rivers_0005_manifest(e) ORDER BY i), '[]'::jsonb) INTO result
        FROM jsonb_array_elements(m) WITH ORDINALITY AS t(e, i);
        RETURN result;
    ELSIF jsonb_typeof(m) <> 'object' THEN
        RETURN m;
    END IF;
    result := '{}'::jsonb;
    FOR k, v IN SELECT * FROM jsonb_each(m) LOOP
        IF k IN ('initial_value', 'default') AND m->>'type' IN ('number_input', 'switch', 'checkbox')
           AND jsonb_typeof(v) IN ('number', 'boolean') THEN
            result := result || jsonb_build_object(k, to_jsonb(v #>> '{}'));
        ELSE
            result := result || jsonb_build_object(k, rivers_0005_manifest(v));
        END IF;
    END LOOP;
    RETURN result;
END
$$;

-- The keys of a manifest's number_input, switch and checkbox fields, at any depth.
CREATE FUNCTION rivers_0005_keys(m jsonb) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(array_agg(DISTINCT f->>'key'), '{}')
    FROM jsonb_path_query(m, 'lax $.**') AS f
    WHERE jsonb_typeof(f) = 'object' AND f->>'type' IN ('number_input', 'switch', 'checkbox') AND f ? 'key'
$$;

-- `values` with each of `keys` that holds a number or boolean written as its text.
CREATE FUNCTION rivers_0005_values(vals jsonb, keys text[]) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN jsonb_typeof(vals) <> 'object' THEN vals ELSE
        coalesce((SELECT jsonb_object_agg(k, CASE WHEN k = ANY (keys) AND jsonb_typeof(v) IN ('number', 'boolean')
                                               THEN to_jsonb(v #>> '{}') ELSE v END)
                  FROM jsonb_each(vals) AS e(k, v)), '{}'::jsonb)
    END
$$;

-- A list of components with the styles of ui_component plugin components converted, groups included.
CREATE FUNCTION rivers_0005_components(list jsonb, app uuid) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
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
                c := jsonb_set(c, '{styles}', rivers_0005_values(c->'styles', rivers_0005_keys(manifest)));
            END IF;
            IF c ? 'ui_components' THEN
                c := jsonb_set(c, '{ui_components}', rivers_0005_components(c->'ui_components', app));
            END IF;
        END IF;
        result := result || jsonb_build_array(c);
    END LOOP;
    RETURN result;
END
$$;

UPDATE plugin_versions SET manifest = rivers_0005_manifest(manifest);

-- Plugin screens: their sections, by the manifest version each screen uses.
UPDATE screens s SET body = (
    SELECT s.body
        || jsonb_build_object('styles', rivers_0005_values(coalesce(s.body->'styles', '{}'), keys))
        || jsonb_build_object('general', rivers_0005_values(coalesce(s.body->'general', '{}'), keys))
        || jsonb_build_object('data', rivers_0005_values(coalesce(s.body->'data', '{}'), keys))
        || jsonb_build_object('rules', rivers_0005_values(coalesce(s.body->'rules', '{}'), keys))
        || jsonb_build_object('advertising', rivers_0005_values(coalesce(s.body->'advertising', '{}'), keys))
    FROM (SELECT rivers_0005_keys(pv.manifest) AS keys
          FROM plugins p JOIN plugin_versions pv ON pv.app_id = p.app_id AND pv.identifier = p.identifier
          WHERE p.app_id = s.app_id AND p.identifier = s.body->>'type'
            AND pv.manifest_version = coalesce(s.body->>'plugin_version', p.current_version)) AS found
)
WHERE EXISTS (SELECT 1 FROM plugins p WHERE p.app_id = s.app_id AND p.identifier = s.body->>'type')
  AND EXISTS (SELECT 1 FROM plugins p JOIN plugin_versions pv ON pv.app_id = p.app_id AND pv.identifier = p.identifier
              WHERE p.app_id = s.app_id AND p.identifier = s.body->>'type'
                AND pv.manifest_version = coalesce(s.body->>'plugin_version', p.current_version));

-- Components of ui_component plugins, on screens and in layouts.
UPDATE screens SET body = jsonb_set(body, '{ui_components}', rivers_0005_components(body->'ui_components', app_id))
WHERE body ? 'ui_components'
  AND EXISTS (SELECT 1 FROM plugins p WHERE p.app_id = screens.app_id);
UPDATE layouts SET body = jsonb_set(body, '{ui_components}', rivers_0005_components(body->'ui_components', app_id))
WHERE body ? 'ui_components'
  AND EXISTS (SELECT 1 FROM plugins p WHERE p.app_id = layouts.app_id);

DROP FUNCTION rivers_0005_components(jsonb, uuid);
DROP FUNCTION rivers_0005_values(jsonb, text[]);
DROP FUNCTION rivers_0005_keys(jsonb);
DROP FUNCTION rivers_0005_manifest(jsonb);
