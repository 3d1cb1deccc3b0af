-- The purge walks the outbox in id order (OutboxRelay: every published row before the first row
-- written within the retention), so the index on published_at has no reader left. Each mark wrote
-- an entry into it (a mark changes published_at, so PostgreSQL writes the row's new version into
-- every index whose predicate it meets); without it a mark writes one index entry fewer.
DROP INDEX IF EXISTS outbox_published_idx;
