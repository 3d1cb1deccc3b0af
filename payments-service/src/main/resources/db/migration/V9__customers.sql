-- The customer directory (SPEC part 2 "Customer"; docs/catalog.md). One row per customer of one
-- merchant in one environment.
CREATE TABLE customers (
  id              text PRIMARY KEY,
  merchant_id     text NOT NULL,
  environment     text NOT NULL,
  name            text NOT NULL,
  email           text,
  phone           text,
  address         json,
  metadata        json NOT NULL,
  receipts_token  text NOT NULL,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL
);

-- email_taken: one email per merchant and environment, compared case-insensitively. The index
-- decides, so two concurrent creates (or updates) cannot both win.
CREATE UNIQUE INDEX customers_email_idx ON customers (merchant_id, environment, lower(email))
  WHERE email IS NOT NULL;

-- The public receipt-history page is found only by this token (192 random bits).
CREATE UNIQUE INDEX customers_receipts_token_idx ON customers (receipts_token);

CREATE INDEX customers_merchant_idx ON customers (merchant_id, environment, id);

-- GET /v1/payments?customer_id= and the receipt history.
CREATE INDEX payments_customer_idx ON payments (merchant_id, environment, customer_id, id)
  WHERE customer_id IS NOT NULL;
