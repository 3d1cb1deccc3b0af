-- Idempotency-Key records (SPEC parts 4 and 8): one per (merchant, environment, key), written in
-- the same transaction as the command it admitted, and completed in the same transaction that
-- records the command's reply. A record older than the 24-hour window is ignored on lookup (the key
-- may be used again) and purged by a scheduled job.
CREATE TABLE idempotency_keys (
  merchant_id     text        NOT NULL,
  environment     text        NOT NULL CHECK (environment IN ('test', 'live')),
  idempotency_key text        NOT NULL,
  -- Method and path of the first request, e.g. 'POST /v1/payments' (also inside the fingerprint).
  route           text        NOT NULL,
  -- Lowercase hex SHA-256 of method, path and the canonical JSON of the body.
  fingerprint     text        NOT NULL,
  -- The one command this key admitted; never a second one while the record lives.
  command_id      text        NOT NULL UNIQUE
                              REFERENCES commands (command_id) DEFERRABLE INITIALLY DEFERRED,
  status          text        NOT NULL CHECK (status IN ('in_progress', 'completed')),
  -- While in progress: until when a request is waiting for the reply. A retry before then gets
  -- 409 conflict; a retry after it takes the lock over and waits for the same command.
  locked_until    timestamptz,
  -- Once completed: exactly what the merchant was answered. json, not jsonb, so a replay returns
  -- the original bytes.
  response_status integer,
  response_body   json,
  created_at      timestamptz NOT NULL,
  completed_at    timestamptz,
  PRIMARY KEY (merchant_id, environment, idempotency_key),
  CHECK ((status = 'completed') = (response_status IS NOT NULL AND response_body IS NOT NULL))
);
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
