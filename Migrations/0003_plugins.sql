-- Plugins registered in an app (Zapp plugin manifests), with every manifest version kept.

CREATE TABLE plugins (
    app_id uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    identifier text NOT NULL,
    -- The version new screens get; screens keep the version they were created with until upgraded.
    current_version text NOT NULL,
    revision integer NOT NULL DEFAULT 1,
    position bigserial,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, identifier)
);

CREATE TABLE plugin_versions (
    app_id uuid NOT NULL,
    identifier text NOT NULL,
    manifest_version text NOT NULL,
    manifest jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, identifier, manifest_version),
    FOREIGN KEY (app_id, identifier) REFERENCES plugins (app_id, identifier) ON DELETE CASCADE
);
