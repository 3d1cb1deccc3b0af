-- Issue 19: an operator settles a live pending_manual refund (QR Ph) through the operator API.
-- What the operator said, kept beside the refund (not part of the merchant's refund resource):
-- the reference of the provider's operators (their ticket or transfer id), and which settlement
-- command did it, so a retried settlement is recognised and answered, not applied twice.
ALTER TABLE refunds
  ADD COLUMN manual_outcome    text CHECK (manual_outcome IN ('succeeded', 'failed')),
  ADD COLUMN manual_reference  text,
  ADD COLUMN manual_settled_at timestamptz;
