-- Payments and the canonical event log (SPEC parts 2, 3 and 6).

CREATE TABLE payments (
  id              text          PRIMARY KEY,
  merchant_id     text          NOT NULL,
  environment     text          NOT NULL CHECK (environment IN ('test', 'live')),
  status          text          NOT NULL CHECK (status IN ('pending', 'processing', 'succeeded',
                                                           'failed', 'expired', 'refunded')),
  amount          numeric(14,2) NOT NULL CHECK (amount >= 0.01),
  currency        char(3)       NOT NULL,
  method          text          NOT NULL,
  provider        text          NOT NULL,
  provider_ref    text,
  checkout_url    text,
  qr_code         text,
  qr_code_url     text,
  app_link        text,
  return_url      text,
  webhook_url     text,
  description     text,
  customer        json,
  metadata        json          NOT NULL,
  customer_id     text,
  payment_link_id text,
  fee_amount      numeric(14,2) NOT NULL CHECK (fee_amount >= 0),
  net_amount      numeric(14,2),
  refunded_amount numeric(14,2) NOT NULL DEFAULT 0,
  idempotency_key text,
  failure_code    text,
  failure_message text,
  expires_at      timestamptz,
  succeeded_at    timestamptz,
  failed_at       timestamptz,
  created_at      timestamptz   NOT NULL,
  updated_at      timestamptz   NOT NULL
);
-- Lists are ascending by id (ids are time-ordered) within a merchant's environment.
CREATE INDEX payments_list_idx ON payments (merchant_id, environment, id);
CREATE INDEX payments_list_status_idx ON payments (merchant_id, environment, status, id);
-- The expiry job's queue.
CREATE INDEX payments_expiry_idx ON payments (expires_at) WHERE status = 'pending';
CREATE UNIQUE INDEX payments_provider_ref_idx ON payments (provider, provider_ref);

-- The canonical event log, listed in (txid, seq) order: txid is the writing transaction, seq a
-- sequence number. Readers list only rows whose transaction is older than the oldest one still in
-- flight (pg_snapshot_xmin); every such transaction has ended, so no row can ever appear before a
-- listed one, and a poller never skips an event. (Listing by seq alone would not do: sequence
-- numbers are taken in another order than transactions start and commit.) The event id encodes
-- (txid, seq), so ids sort exactly as the log lists them.
CREATE SEQUENCE events_seq;
CREATE TABLE events (
  txid          xid8        NOT NULL,
  seq           bigint      NOT NULL,
  type          text        NOT NULL,
  merchant_id   text        NOT NULL,
  environment   text        NOT NULL CHECK (environment IN ('test', 'live')),
  resource_type text        NOT NULL,
  resource_id   text        NOT NULL,
  created_at    timestamptz NOT NULL,
  -- The event exactly as webhooks deliver it and GET /v1/events/{id} returns it.
  body          bytea       NOT NULL,
  PRIMARY KEY (txid, seq)
);
CREATE INDEX events_list_idx ON events (merchant_id, environment, txid, seq);
CREATE INDEX events_list_type_idx ON events (merchant_id, environment, type, txid, seq);
CREATE INDEX events_resource_idx ON events (resource_id, txid, seq);

-- Provider callbacks already applied: a callback delivered twice changes nothing.
CREATE TABLE provider_callbacks (
  provider    text        NOT NULL,
  callback_id text        NOT NULL,
  received_at timestamptz NOT NULL,
  PRIMARY KEY (provider, callback_id)
);

-- Per-merchant fee overrides; methods without a row use the documented defaults.
CREATE TABLE merchant_fees (
  merchant_id  text          NOT NULL,
  method       text          NOT NULL,
  percent      numeric(6,4)  NOT NULL CHECK (percent >= 0 AND percent < 100),
  fixed_amount numeric(14,2) NOT NULL CHECK (fixed_amount >= 0),
  PRIMARY KEY (merchant_id, method)
);
