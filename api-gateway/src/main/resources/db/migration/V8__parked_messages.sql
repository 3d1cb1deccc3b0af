-- Records a consumer gave up on (platform BatchApplier, docs/outbox.md "Parking"): a record that
-- failed on its own, max-attempts times in a row and never because the database was away, is kept
-- here whole, the consumer's inbox records it as consumed and, for a command, its rejection reply
-- goes out; then the partition moves on. Not a Flyway location of its own: each service copies this
-- table into its own migration (the version numbers are the service's); platform tests apply it.
CREATE TABLE parked_messages (
  id              text        PRIMARY KEY,
  consumer        text        NOT NULL,
  topic           text        NOT NULL,
  partition_no    integer     NOT NULL,
  record_offset   bigint      NOT NULL,
  message_key     text,
  message_id      text,
  message_type    text,
  payload         bytea,
  last_error      text        NOT NULL,
  attempts        integer     NOT NULL,
  first_failed_at timestamptz NOT NULL,
  last_failed_at  timestamptz NOT NULL,
  parked_at       timestamptz NOT NULL,
  -- True when a rejection reply went out with the parking (commands): re-applying it would
  -- contradict the answer the merchant already has, so an operator can only resolve it.
  reply_sent      boolean     NOT NULL,
  resolved_at     timestamptz,
  resolution      text,
  UNIQUE (consumer, topic, partition_no, record_offset)
);
CREATE INDEX parked_messages_unresolved_idx ON parked_messages (parked_at)
  WHERE resolved_at IS NULL;
