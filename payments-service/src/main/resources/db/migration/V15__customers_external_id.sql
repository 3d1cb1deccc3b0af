-- Embed tokens scoped by the merchant's own id for a customer (issue 18): the gateway finds the
-- customer whose metadata.external_id is the token request's scope_value, among one merchant's
-- customers in one environment (internal GET /internal/customers?external_id=).
CREATE INDEX customers_external_id_idx
  ON customers (merchant_id, environment, (metadata ->> 'external_id'))
  WHERE (metadata ->> 'external_id') IS NOT NULL;
