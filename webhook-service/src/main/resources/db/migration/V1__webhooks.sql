-- Webhook endpoints, the account-level secrets of payment webhook_url overrides, the events being
-- delivered, deliveries and their attempt log (SPEC parts 2 and 6; docs/webhooks.md).

-- Signing secrets are stored only encrypted (AES-256-GCM, key from WEBHOOK_SECRET_KEY, the row's
-- identity as associated data): version byte || 12-byte nonce || ciphertext with tag.
CREATE TABLE webhook_endpoints (
  id                         text        PRIMARY KEY,                 -- whe_…
  merchant_id                text        NOT NULL,
  environment                text        NOT NULL CHECK (environment IN ('test', 'live')),
  url                        text        NOT NULL,
  events                     text[]      NOT NULL,                    -- event types, or {'*'}
  description                text,
  enabled                    boolean     NOT NULL,
  secret                     bytea       NOT NULL,
  -- During a rotation the previous secret signs too, until previous_secret_expires_at.
  previous_secret            bytea,
  previous_secret_expires_at timestamptz,
  created_at                 timestamptz NOT NULL,
  updated_at                 timestamptz NOT NULL,
  deleted_at                 timestamptz
);
CREATE INDEX webhook_endpoints_merchant_idx
  ON webhook_endpoints (merchant_id, environment, id) WHERE deleted_at IS NULL;

-- One per merchant environment: signs deliveries to a payment's webhook_url override.
CREATE TABLE account_secrets (
  merchant_id                text        NOT NULL,
  environment                text        NOT NULL CHECK (environment IN ('test', 'live')),
  secret                     bytea       NOT NULL,
  previous_secret            bytea,
  previous_secret_expires_at timestamptz,
  created_at                 timestamptz NOT NULL,
  updated_at                 timestamptz NOT NULL,
  PRIMARY KEY (merchant_id, environment)
);

-- The events being delivered, byte for byte as the event log stored them (the Kafka record value).
-- Kept indefinitely, like the event log itself (SPEC part 6).
CREATE TABLE webhook_events (
  id          text        PRIMARY KEY,                                -- evt_…
  merchant_id text        NOT NULL,
  environment text        NOT NULL,
  type        text        NOT NULL,
  body        bytea       NOT NULL,
  received_at timestamptz NOT NULL
);

-- One delivery of one event to one target. Its id is the numeric X-Service-Delivery header, the
-- same on every attempt. Status: pending (an attempt is due at next_attempt_at, or one is running
-- under a lease), succeeded, failed (retries exhausted, or the endpoint went away; can be replayed).
CREATE TABLE webhook_deliveries (
  id              bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  merchant_id     text        NOT NULL,
  environment     text        NOT NULL,
  endpoint_id     text        REFERENCES webhook_endpoints (id),
  override_url    text,                                               -- a payment's webhook_url
  -- What a slow receiver may hold up: the endpoint id, or url:<host:port> for an override.
  target          text        NOT NULL,
  event_id        text        NOT NULL REFERENCES webhook_events (id),
  event_type      text        NOT NULL,
  status          text        NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempt_count   integer     NOT NULL DEFAULT 0,                     -- all attempts, replays too
  retries_used    integer     NOT NULL DEFAULT 0,                     -- of the retry schedule
  next_attempt_at timestamptz,                                        -- set while pending
  lease_token     bigint,                                             -- the claim of a running attempt
  last_status_code integer,
  last_error      text,
  last_attempt_at timestamptz,
  created_at      timestamptz NOT NULL,
  completed_at    timestamptz,                                        -- when it became succeeded/failed
  CHECK ((endpoint_id IS NULL) <> (override_url IS NULL)),
  CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL))
);
-- The same event is delivered once per endpoint and once to the override.
CREATE UNIQUE INDEX webhook_deliveries_endpoint_event_idx
  ON webhook_deliveries (endpoint_id, event_id) WHERE endpoint_id IS NOT NULL;
CREATE UNIQUE INDEX webhook_deliveries_override_event_idx
  ON webhook_deliveries (event_id) WHERE override_url IS NOT NULL;
-- The scheduler's work queue.
CREATE INDEX webhook_deliveries_due_idx
  ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, id);
CREATE INDEX webhook_deliveries_completed_idx
  ON webhook_deliveries (completed_at) WHERE completed_at IS NOT NULL;

-- Every attempt, kept 90 days (SPEC part 6).
CREATE TABLE webhook_attempts (
  id               bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  delivery_id      bigint      NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempt_number   integer     NOT NULL,
  attempted_at     timestamptz NOT NULL,
  url              text        NOT NULL,
  status_code      integer,                                           -- null: no HTTP response
  latency_ms       integer     NOT NULL,
  error            text,
  response_snippet text,                                              -- at most 1 KB of the body
  UNIQUE (delivery_id, attempt_number)
);
CREATE INDEX webhook_attempts_attempted_idx ON webhook_attempts (attempted_at);
