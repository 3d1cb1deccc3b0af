-- Answered commands are purged once they are past their use (CommandPurge): their replies were
-- kept for the 24-hour idempotency window and for operators, not for ever. The purge finds them by
-- the time of their reply; commands still waiting for one are never purged.
CREATE INDEX commands_replied_idx ON commands (replied_at) WHERE replied_at IS NOT NULL;
