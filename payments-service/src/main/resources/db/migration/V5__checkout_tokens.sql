-- Public checkout and QR image URLs carry an unguessable token instead of the time-ordered payment
-- id (ids minted in one millisecond differ by one, so a bare-id URL leads to its neighbours).
ALTER TABLE payments ADD COLUMN checkout_token text;

-- Payments made before: a token of 192 bits from two strong random UUIDs (gen_random_uuid draws
-- from the server's cryptographic generator), and their stored URLs moved onto it; the bare-id
-- URLs they carried stop resolving.
UPDATE payments
   SET checkout_token = 'ct_' || substr(translate(encode(sha256(convert_to(
         gen_random_uuid()::text || gen_random_uuid()::text, 'UTF8')), 'base64'), '+/', '-_'), 1, 32)
 WHERE checkout_url IS NOT NULL OR qr_code_url IS NOT NULL;
UPDATE payments
   SET checkout_url = replace(checkout_url, '/checkout/' || id, '/checkout/' || checkout_token),
       qr_code_url = replace(qr_code_url, '/qr/' || id || '.', '/qr/' || checkout_token || '.')
 WHERE checkout_token IS NOT NULL;

CREATE UNIQUE INDEX payments_checkout_token_idx ON payments (checkout_token)
  WHERE checkout_token IS NOT NULL;
