-- A slug change counts the app's former slugs that still redirect: read by app (the index also
-- serves the cascade when an app is purged).
CREATE INDEX slug_redirects_app ON slug_redirects (app_id);
