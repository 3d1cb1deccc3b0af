-- Rate limiting (SPEC part 8): no API key gets more than its limit of requests through in any
-- 60-second window. One row per key holds a sliding-window log: the times (epoch milliseconds, from
-- the gateway's clock) of the key's requests admitted in the last 60 seconds. Every gateway replica
-- decides under this row's lock, so two replicas can never both admit the request over the limit.
-- Refused requests are not recorded. Times older than the window are pruned on every update, and
-- rows of keys idle for more than an hour are purged, so the table stays small.
--
-- No foreign key to api_keys: a row is only a counter, recreated on the key's next request.
-- No index on last_admitted_millis: it changes on every admitted request, and an index on it would
-- make every such update a non-HOT one; the purge scans a table of recently active keys only. The
-- fill factor leaves room on each page for those in-place (HOT) updates.
CREATE TABLE rate_limits (
  api_key_id           text     PRIMARY KEY,
  -- Ascending; pruned to the window whenever the row is written.
  admitted_at          bigint[] NOT NULL,
  last_admitted_millis bigint   NOT NULL
) WITH (fillfactor = 70);
