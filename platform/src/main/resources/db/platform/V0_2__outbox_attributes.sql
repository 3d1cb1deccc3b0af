-- Envelope attributes (e.g. the merchant an event belongs to), published as Kafka headers.
ALTER TABLE outbox ADD COLUMN attributes json;
