-- The hosted checkout's sandbox card form (issue 16): a card order can wait for the cardholder's
-- 3-D Secure challenge before it is captured or declined.
ALTER TABLE sandbox_orders DROP CONSTRAINT sandbox_orders_status_check;
ALTER TABLE sandbox_orders ADD CONSTRAINT sandbox_orders_status_check
  CHECK (status IN ('created', 'challenge', 'paid', 'captured', 'declined'));
