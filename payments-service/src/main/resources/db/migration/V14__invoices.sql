-- Invoices (SPEC part 2 "Invoice", issue 17; docs/invoices.md).

CREATE TABLE invoices (
  id                       text          PRIMARY KEY,
  merchant_id              text          NOT NULL,
  environment              text          NOT NULL CHECK (environment IN ('test', 'live')),
  kind                     text          NOT NULL CHECK (kind IN ('invoice', 'activation_fee')),
  -- INV-YYYY-NNNN, assigned when sent (invoice_numbers); null for drafts and activation fees.
  number                   text,
  status                   text          NOT NULL
                             CHECK (status IN ('draft', 'sent', 'partial', 'paid', 'void')),
  amount                   numeric(14,2) NOT NULL CHECK (amount >= 0),
  subtotal                 numeric(14,2),
  tax_amount               numeric(14,2) NOT NULL CHECK (tax_amount >= 0),
  discount_amount          numeric(14,2) NOT NULL CHECK (discount_amount >= 0),
  currency                 char(3)       NOT NULL,
  description              text,
  line_items               jsonb         NOT NULL,
  customer_id              text,
  due_date                 date,
  notes                    text,
  terms                    text,
  allow_partial_payment    boolean       NOT NULL,
  -- Moved only with a payment's move to succeeded or a refund's to succeeded, in that transaction.
  amount_paid              numeric(14,2) NOT NULL CHECK (amount_paid >= 0),
  deposit_rate             numeric(10,8) CHECK (deposit_rate > 0 AND deposit_rate < 1),
  deposit_due_at           timestamptz,
  balance_due_at           timestamptz,
  shipment_id              text,
  forfeited_at             timestamptz,
  issued_at                timestamptz,
  sent_at                  timestamptz,
  paid_at                  timestamptz,
  void_at                  timestamptz,
  payment_id               text,
  metadata                 jsonb         NOT NULL,
  -- The public page is /i/{token}: it_ + 32 base64url chars of 192 random bits.
  token                    text          NOT NULL CHECK (token ~ '^it_[A-Za-z0-9_-]{32}$'),
  -- When invoice.balance_due was written: once per invoice.
  balance_due_announced_at timestamptz,
  created_at               timestamptz   NOT NULL,
  updated_at               timestamptz   NOT NULL
);
CREATE UNIQUE INDEX invoices_token_idx ON invoices (token);
CREATE UNIQUE INDEX invoices_number_idx ON invoices (merchant_id, environment, number)
  WHERE number IS NOT NULL;
CREATE INDEX invoices_list_idx ON invoices (merchant_id, environment, id);
CREATE INDEX invoices_status_idx ON invoices (merchant_id, environment, status, id);
CREATE INDEX invoices_customer_idx ON invoices (merchant_id, environment, customer_id, id);
-- The deadline job reads only invoices that take payments.
CREATE INDEX invoices_open_idx ON invoices (id) WHERE status IN ('sent', 'partial');

-- The last number given per merchant, environment and (Manila) year of sending. Sending locks the
-- row (upsert) until its transaction ends, so numbers are consecutive, and a rolled-back send gives
-- its number back.
CREATE TABLE invoice_numbers (
  merchant_id  text    NOT NULL,
  environment  text    NOT NULL,
  year         integer NOT NULL,
  last_number  integer NOT NULL CHECK (last_number > 0),
  PRIMARY KEY (merchant_id, environment, year)
);

-- The invoice a payment pays (written with the payment, in payments.create's transaction).
CREATE TABLE invoice_payments (
  payment_id  text  PRIMARY KEY REFERENCES payments (id),
  invoice_id  text  NOT NULL REFERENCES invoices (id)
);
CREATE INDEX invoice_payments_invoice_idx ON invoice_payments (invoice_id);
