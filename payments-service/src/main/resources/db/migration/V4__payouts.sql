-- Payouts (SPEC parts 2 and 3), the payout bank-code registry and the sandbox payout rails.

CREATE TABLE payouts (
  id              text          PRIMARY KEY,
  merchant_id     text          NOT NULL,
  environment     text          NOT NULL CHECK (environment IN ('test', 'live')),
  status          text          NOT NULL CHECK (status IN ('pending', 'processing', 'succeeded',
                                                           'failed')),
  -- Debited from the merchant's balance (held by the ledger before the payout is accepted); the
  -- fee is part of it, so the recipient receives amount - fee_amount.
  amount          numeric(14,2) NOT NULL CHECK (amount >= 0.01),
  currency        char(3)       NOT NULL,
  method          text          NOT NULL,
  provider        text          NOT NULL,
  provider_ref    text,
  destination     json          NOT NULL,
  description     text,
  metadata        json,
  fee_amount      numeric(14,2) NOT NULL CHECK (fee_amount >= 0 AND fee_amount < amount),
  failure_code    text,
  failure_message text,
  paid_at         timestamptz,
  failed_at       timestamptz,
  created_at      timestamptz   NOT NULL,
  updated_at      timestamptz   NOT NULL
);
CREATE INDEX payouts_list_idx ON payouts (merchant_id, environment, id);
CREATE INDEX payouts_list_status_idx ON payouts (merchant_id, environment, status, id);
CREATE UNIQUE INDEX payouts_provider_ref_idx ON payouts (provider, provider_ref);

-- The payout bank-code registry (GET /v1/payout-banks). Its rows come from
-- db/data/payout_banks.csv through the repeatable Java migration R__Payout_bank_registry, which
-- runs again whenever the file changes. Codes are never deleted: a code that leaves the file is
-- kept with status 0, so old payouts still name a known institution.
CREATE TABLE payout_banks (
  code       text        PRIMARY KEY,
  name       text        NOT NULL,
  kind       text        NOT NULL CHECK (kind IN ('bank', 'emi')),
  brstn      text        CHECK (brstn ~ '^[0-9]{9}$'),
  status     smallint    NOT NULL CHECK (status IN (0, 1)),
  updated_at timestamptz NOT NULL
);

-- The sandbox payout rails' own books, as a real provider would keep them.
CREATE TABLE sandbox_payouts (
  provider_ref text          PRIMARY KEY,
  provider     text          NOT NULL,
  payout_id    text          NOT NULL,
  -- What reaches the recipient: the payout's amount minus its fee.
  amount       numeric(14,2) NOT NULL,
  currency     char(3)       NOT NULL,
  account_no   text          NOT NULL,
  status       text          NOT NULL CHECK (status IN ('queued', 'processing', 'paid', 'failed')),
  -- The batch rail's next cut-off for a queued payout.
  batch_at     timestamptz,
  created_at   timestamptz   NOT NULL,
  updated_at   timestamptz   NOT NULL
);
CREATE INDEX sandbox_payouts_batch_idx ON sandbox_payouts (batch_at) WHERE status = 'queued';
