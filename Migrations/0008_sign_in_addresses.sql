-- Where each account signed in with its password lately. From an address it used in the last 30
-- days, the per-account sign-in throttle does not hold its owner back: someone failing on purpose
-- from elsewhere cannot lock the owner out (the per-address limit still applies everywhere).
CREATE TABLE sign_in_addresses (
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    address text NOT NULL,
    last_success timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, address)
);
