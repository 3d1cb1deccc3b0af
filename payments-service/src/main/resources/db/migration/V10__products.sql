-- Products with inventory (SPEC part 2 "Product", issue 15; docs/catalog.md "Products").

CREATE TABLE products (
  id                  text          PRIMARY KEY,
  merchant_id         text          NOT NULL,
  environment         text          NOT NULL CHECK (environment IN ('test', 'live')),
  name                text          NOT NULL,
  description         text,
  -- Null is an open amount, entered by the cashier or the customer.
  price               numeric(14,2) CHECK (price >= 0),
  currency            char(3)       NOT NULL,
  sku                 text,
  barcode             text,
  image_url           text,
  track_inventory     boolean       NOT NULL,
  stock               integer       NOT NULL CHECK (stock >= 0),
  low_stock_threshold integer       CHECK (low_stock_threshold >= 0),
  archived            boolean       NOT NULL DEFAULT false,
  category            text,
  metadata            jsonb         NOT NULL,
  created_at          timestamptz   NOT NULL,
  updated_at          timestamptz   NOT NULL
);
CREATE INDEX products_list_idx ON products (merchant_id, environment, archived, id);
-- sku and barcode are unique per merchant and environment, compared case-insensitively: a clash
-- is 409 duplicate_sku, also between two concurrent requests.
CREATE UNIQUE INDEX products_sku_idx ON products (merchant_id, environment, lower(sku))
  WHERE sku IS NOT NULL;
CREATE UNIQUE INDEX products_barcode_idx ON products (merchant_id, environment, lower(barcode))
  WHERE barcode IS NOT NULL;

-- The next number of an auto-generated SKU-NNNNN, per merchant and environment.
CREATE TABLE product_sku_sequences (
  merchant_id text    NOT NULL,
  environment text    NOT NULL,
  last_number bigint  NOT NULL,
  PRIMARY KEY (merchant_id, environment)
);
