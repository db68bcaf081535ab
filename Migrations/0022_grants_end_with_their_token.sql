-- What a token makes no longer outlives it: a token or a preview link made by a token that expires
-- now expires at that moment at the latest (the server caps them when they are made). Those made
-- before are capped here, along chains of tokens made by tokens (a few levels at most).
DO $$
DECLARE
    capped integer;
BEGIN
    LOOP
        UPDATE api_tokens t SET expires_at = m.expires_at
        FROM api_tokens m
        WHERE t.granted_by_token = m.id AND m.expires_at IS NOT NULL AND (t.expires_at IS NULL OR t.expires_at > m.expires_at);
        GET DIAGNOSTICS capped = ROW_COUNT;
        EXIT WHEN capped = 0;
    END LOOP;
END $$;

UPDATE preview_links l SET expires_at = m.expires_at
FROM api_tokens m
WHERE l.granted_by_token = m.id AND m.expires_at IS NOT NULL AND l.expires_at > m.expires_at;
