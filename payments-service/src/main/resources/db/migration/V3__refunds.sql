-- Refunds (SPEC parts 2 and 3) and the sandbox provider's books for them.

CREATE TABLE refunds (
  id              text          PRIMARY KEY,
  merchant_id     text          NOT NULL,
  environment     text          NOT NULL CHECK (environment IN ('test', 'live')),
  payment_id      text          NOT NULL REFERENCES payments (id),
  status          text          NOT NULL CHECK (status IN ('pending', 'processing', 'pending_manual',
                                                           'succeeded', 'failed')),
  amount          numeric(14,2) NOT NULL CHECK (amount >= 0.01),
  currency        char(3)       NOT NULL,
  reason          text          CHECK (reason IN ('duplicate', 'fraudulent',
                                                  'requested_by_customer', 'other')),
  -- The payment's provider, which carries the refund out.
  provider        text          NOT NULL,
  provider_ref    text,
  failure_code    text,
  failure_message text,
  succeeded_at    timestamptz,
  failed_at       timestamptz,
  created_at      timestamptz   NOT NULL,
  updated_at      timestamptz   NOT NULL
);
CREATE INDEX refunds_list_idx ON refunds (merchant_id, environment, id);
CREATE INDEX refunds_list_status_idx ON refunds (merchant_id, environment, status, id);
-- The refundable balance of a payment sums its refunds that are not failed.
CREATE INDEX refunds_payment_idx ON refunds (payment_id, id);
CREATE UNIQUE INDEX refunds_provider_ref_idx ON refunds (provider, provider_ref);

-- A last line of defence behind the reservation under the payment's lock: the succeeded refunds
-- of a payment can never add up to more than its amount.
ALTER TABLE payments ADD CONSTRAINT payments_refunded_within_amount
  CHECK (refunded_amount >= 0 AND refunded_amount <= amount);

-- The sandbox provider's side of refunds, as a real provider would keep it.
CREATE TABLE sandbox_refunds (
  provider_ref text          PRIMARY KEY,
  provider     text          NOT NULL,
  refund_id    text          NOT NULL,
  order_ref    text          NOT NULL,
  amount       numeric(14,2) NOT NULL,
  currency     char(3)       NOT NULL,
  status       text          NOT NULL CHECK (status IN ('processing', 'manual', 'succeeded',
                                                        'failed')),
  created_at   timestamptz   NOT NULL,
  updated_at   timestamptz   NOT NULL
);
