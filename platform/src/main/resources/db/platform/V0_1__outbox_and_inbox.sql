-- Platform tables every service has in its own database: the transactional outbox and the inbox
-- of the idempotent consumer. Versions 0.x are reserved for platform migrations; each service's
-- own migrations start at V1.

-- Messages waiting to be published to Kafka. A row is written in the same transaction as the
-- state change it announces; the relay publishes committed rows in id order and marks them.
CREATE TABLE outbox (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  message_id      text        NOT NULL UNIQUE,
  topic           text        NOT NULL,
  message_key     text        NOT NULL,
  message_type    text        NOT NULL,
  payload         bytea       NOT NULL,
  created_at      timestamptz NOT NULL,
  -- Lifecycle: pending while published_at is null; attempts and last_error record failures;
  -- published rows are purged after a retention period.
  published_at    timestamptz,
  attempts        integer     NOT NULL DEFAULT 0,
  last_error      text,
  last_attempt_at timestamptz
);

-- The relay's work queue: only unpublished rows, in id order.
CREATE INDEX outbox_pending_idx ON outbox (id) WHERE published_at IS NULL;
CREATE INDEX outbox_published_idx ON outbox (published_at) WHERE published_at IS NOT NULL;

-- Messages already applied by a consumer. The row is inserted in the same transaction as the
-- handler's effect, so a redelivered message finds it and changes nothing.
CREATE TABLE inbox (
  consumer     text        NOT NULL,
  message_id   text        NOT NULL,
  processed_at timestamptz NOT NULL,
  PRIMARY KEY (consumer, message_id)
);
CREATE INDEX inbox_processed_idx ON inbox (processed_at);
