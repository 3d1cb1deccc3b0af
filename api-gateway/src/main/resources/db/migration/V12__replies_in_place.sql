-- A command's reply is recorded in place (heap-only): recording it changes no indexed column, so
-- PostgreSQL writes the new row version beside the old one in the same page and no index entry
-- (docs/decisions.md, "A command's reply is recorded in place"). Before, the two partial indexes on
-- replied_at made every reply a new version in each of the table's indexes: about six WAL records a
-- reply on the creation path.
--
-- commands_pending_idx (created_at WHERE replied_at IS NULL) had no reader: the operator's listing
-- of pending commands goes by merchant and command id, and nothing else looks for unanswered
-- commands by age.
DROP INDEX commands_pending_idx;

-- The purge (CommandPurge) deletes commands answered before its cutoff. It now walks them by their
-- creation time, which a reply does not change; a command is answered after it was created, so the
-- commands answered before the cutoff are among those created before it.
CREATE INDEX commands_created_idx ON commands (created_at);
DROP INDEX commands_replied_idx;

-- Room in each page for the replies of the rows inserted into it: a row about doubles when its
-- reply arrives (the reply's body beside the request's), and a heap-only update needs the new
-- version to fit in the old one's page. Pages filled by inserts up to 40 % keep that room.
ALTER TABLE commands SET (fillfactor = 40);

-- The same for an idempotency record, whose completion (status, the response kept for replays)
-- also changes no indexed column.
ALTER TABLE idempotency_keys SET (fillfactor = 50);
