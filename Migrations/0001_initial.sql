-- The builder's data model. Each resource keeps its validated JSON in `body`; the columns beside it
-- are what queries and constraints need (references, uniqueness, order).

CREATE TABLE apps (
    id uuid PRIMARY KEY,
    slug text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
    name text NOT NULL,
    -- The counter behind generated screen_type values; it only grows, so a value is never reused.
    next_screen_number integer NOT NULL DEFAULT 1,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_tokens (
    id uuid PRIMARY KEY,
    app_id uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    -- sha256 of the token; the token itself is shown once and never stored.
    token_hash bytea NOT NULL UNIQUE,
    label text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE families (
    app_id uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    id text NOT NULL,
    body jsonb NOT NULL,
    revision integer NOT NULL DEFAULT 1,
    position bigserial,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, id)
);

CREATE TABLE layouts (
    app_id uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    id text NOT NULL,
    family text NOT NULL,
    body jsonb NOT NULL,
    revision integer NOT NULL DEFAULT 1,
    position bigserial,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, id),
    FOREIGN KEY (app_id, family) REFERENCES families (app_id, id)
);

CREATE TABLE screens (
    app_id uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    id uuid NOT NULL,
    screen_type text NOT NULL,
    home boolean NOT NULL DEFAULT false,
    parent uuid,
    family text NOT NULL,
    -- Every screen this one points at (component and nav item targets, hook screens).
    targets uuid[] NOT NULL DEFAULT '{}',
    body jsonb NOT NULL,
    revision integer NOT NULL DEFAULT 1,
    position bigserial,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, id),
    UNIQUE (app_id, screen_type),
    FOREIGN KEY (app_id, family) REFERENCES families (app_id, id),
    FOREIGN KEY (app_id, parent) REFERENCES screens (app_id, id)
);

-- At most one home per app; the API keeps it at exactly one once the app has screens.
CREATE UNIQUE INDEX screens_one_home ON screens (app_id) WHERE home;
CREATE INDEX screens_targets ON screens USING gin (targets);
CREATE INDEX screens_parent ON screens (app_id, parent);
