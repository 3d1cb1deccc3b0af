-- Payment links (SPEC part 2 "PaymentLink", issue 16; docs/catalog.md "Payment links").

CREATE TABLE payment_links (
  id            text          PRIMARY KEY,
  merchant_id   text          NOT NULL,
  environment   text          NOT NULL CHECK (environment IN ('test', 'live')),
  -- The public page is /l/{slug}: 16 characters of [A-Za-z0-9] from SecureRandom (~95 bits), so
  -- holding one link's URL leads to no other (the plk_ id is time-ordered and never public).
  slug          text          NOT NULL CHECK (slug ~ '^[A-Za-z0-9]{16}$'),
  description   text          NOT NULL,
  -- Null: the customer enters the amount.
  amount        numeric(14,2) CHECK (amount > 0),
  currency      char(3)       NOT NULL,
  -- Null: the customer picks the method.
  method        text,
  image_url     text,
  success_url   text,
  cancel_url    text,
  status        text          NOT NULL CHECK (status IN ('active', 'inactive')),
  customer_id   text,
  -- Moved only with a payment's move to succeeded, in that transaction (PaymentMoves).
  usage_count   integer       NOT NULL DEFAULT 0 CHECK (usage_count >= 0),
  last_used_at  timestamptz,
  expires_at    timestamptz,
  metadata      jsonb         NOT NULL,
  created_at    timestamptz   NOT NULL,
  updated_at    timestamptz   NOT NULL
);
CREATE UNIQUE INDEX payment_links_slug_idx ON payment_links (slug);
CREATE INDEX payment_links_list_idx ON payment_links (merchant_id, environment, id);
CREATE INDEX payment_links_status_idx ON payment_links (merchant_id, environment, status, id);

-- GET /v1/payments of one link, and the link of a payment.
CREATE INDEX payments_payment_link_idx ON payments (payment_link_id)
  WHERE payment_link_id IS NOT NULL;
