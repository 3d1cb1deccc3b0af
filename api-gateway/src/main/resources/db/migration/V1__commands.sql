-- The command log: every mutating request the gateway accepted, with the owner's reply once it
-- arrives. The row is written in the same transaction as the outbox row that carries the command,
-- so an accepted command is never lost, and a retry can return the recorded reply.
CREATE TABLE commands (
  command_id   text        PRIMARY KEY,
  command_type text        NOT NULL,
  topic        text        NOT NULL,
  merchant_id  text,
  environment  text CHECK (environment IN ('test', 'live')),
  resource_id  text,
  request      json        NOT NULL,
  created_at   timestamptz NOT NULL,
  -- Filled when the reply arrives.
  reply_status integer,
  reply_body   json, -- json, not jsonb: kept byte for byte for idempotent replays
  replied_at   timestamptz
);
CREATE INDEX commands_pending_idx ON commands (created_at) WHERE replied_at IS NULL;
