-- A payout's ledger hold, as payments-service asked for it (docs/ledger.md, "Orphaned holds").
--
-- The hold is asked over HTTP before the transaction that writes the payout opens (no database
-- transaction waits on the network), so the two can part: the hold is taken and the payout is
-- never written (the transaction rolled back and the retry was refused, or never came). This row
-- is what reconciles them:
--   * written (committed) before each ask, so every hold the ledger has from this service has a
--     row here, and last_asked_at says whether a command for the payout is still being tried;
--   * the creating transaction locks it (FOR UPDATE), reads the ledger's answer from it, and
--     refuses to create the payout when released_at is set;
--   * the reconciler locks it too, and sets released_at only when no payout row exists and no ask
--     came within the grace period; then it releases the hold in the ledger (idempotent).
-- The row lock orders the two, so a payout is never created on a released hold.
CREATE TABLE payout_hold_requests (
  payout_id      text          PRIMARY KEY,
  -- The command that asked; null for a hold the reconciler found with no row (asked by a release
  -- before this table existed).
  command_id     text,
  merchant_id    text          NOT NULL,
  environment    text          NOT NULL CHECK (environment IN ('test', 'live')),
  amount         numeric(14,2) NOT NULL CHECK (amount > 0),
  currency       char(3)       NOT NULL,
  -- The ledger's last answer: asking (no answer recorded yet), held, insufficient, refused (another
  -- definite refusal, refusal_code says which), unavailable (no answer: the command is retried),
  -- released (the ledger says the hold was already given back).
  outcome        text          NOT NULL CHECK (outcome IN ('asking', 'held', 'insufficient',
                                                         'refused', 'unavailable', 'released')),
  refusal_code   text,
  first_asked_at timestamptz   NOT NULL,
  last_asked_at  timestamptz   NOT NULL,
  -- Set by the reconciler once it decided the payout will never exist; final.
  released_at    timestamptz
);
