-- Static QR codes (SPEC part 2 "StaticQr", issue 16; docs/catalog.md "Static QR codes"). Each
-- encodes the open-amount payment link created with it, in the same transaction.

CREATE TABLE static_qrs (
  id              text        PRIMARY KEY,
  merchant_id     text        NOT NULL,
  environment     text        NOT NULL CHECK (environment IN ('test', 'live')),
  name            text        NOT NULL,
  reference       text,
  location        text,
  payment_link_id text        NOT NULL REFERENCES payment_links (id),
  default_method  text,
  currency        char(3)     NOT NULL,
  -- Archiving is final: the QR's link becomes inactive in the same transaction and nothing
  -- restores either (docs/decisions.md).
  archived        boolean     NOT NULL DEFAULT false,
  archived_at     timestamptz,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL,
  CHECK (archived = (archived_at IS NOT NULL))
);
CREATE UNIQUE INDEX static_qrs_payment_link_idx ON static_qrs (payment_link_id);
CREATE INDEX static_qrs_list_idx ON static_qrs (merchant_id, environment, archived, id);
