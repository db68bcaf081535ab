-- Making a one-time link (an invitation, a password link) drops links used or expired a month ago
-- in the same transaction; without an index on that moment the drop read the whole table every
-- time, and the table holds every link of every app for a month.
CREATE INDEX links_done ON links ((coalesce(used_at, expires_at)));
