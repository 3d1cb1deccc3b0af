-- The sandbox provider's own books: what a real provider would keep on its side. Our payments
-- learn of changes only through the provider's signed callbacks.
CREATE TABLE sandbox_orders (
  provider_ref text          PRIMARY KEY,
  provider     text          NOT NULL,
  payment_id   text          NOT NULL,
  amount       numeric(14,2) NOT NULL,
  currency     char(3)       NOT NULL,
  status       text          NOT NULL CHECK (status IN ('created', 'paid', 'captured', 'declined')),
  created_at   timestamptz   NOT NULL,
  updated_at   timestamptz   NOT NULL
);
