-- Merchants and their API keys. A key's secret is never stored: only its keyed hash
-- (HMAC-SHA256 with API_KEY_HASH_SECRET), which is also how a presented key is found.
CREATE TABLE merchants (
  id         text        PRIMARY KEY,
  name       text        NOT NULL,
  email      text        NOT NULL,
  status     text        NOT NULL CHECK (status IN ('active', 'inactive')),
  live       boolean     NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

CREATE TABLE api_keys (
  id                    text        PRIMARY KEY,
  merchant_id           text        NOT NULL REFERENCES merchants (id),
  environment           text        NOT NULL CHECK (environment IN ('test', 'live')),
  secret_hash           bytea       NOT NULL UNIQUE,
  -- The last four characters, so an operator can tell keys apart without the secret.
  secret_last4          text        NOT NULL,
  scopes                text[]      NOT NULL,
  -- Null means the default (RATE_LIMIT_PER_MINUTE).
  rate_limit_per_minute integer     CHECK (rate_limit_per_minute > 0),
  created_at            timestamptz NOT NULL,
  revoked_at            timestamptz
);
CREATE INDEX api_keys_merchant_idx ON api_keys (merchant_id, created_at);
