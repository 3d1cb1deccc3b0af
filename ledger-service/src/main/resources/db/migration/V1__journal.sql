-- The double-entry journal (docs/ledger.md): accounts, journal transactions and their postings.
--
-- Sign convention: a posting's amount is positive for a credit and negative for a debit, and an
-- account's balance is the sum of its postings. The merchant's accounts therefore show what the
-- platform owes the merchant as a positive number; provider clearing (money the providers owe the
-- platform) is negative. Every transaction's postings sum to zero, so all postings of an
-- environment and currency sum to zero too.
--
-- What the database itself guarantees, whatever the application does:
--   * journal transactions and postings are append-only (no UPDATE, DELETE or TRUNCATE);
--   * a posting moves its account's balance in the same statement (trigger), and a balance moves
--     in no other way, so a balance is always the sum of its postings;
--   * a posting belongs to an account of its transaction's environment and currency;
--   * at commit, every transaction that received postings sums to zero.

CREATE TABLE accounts (
  id          bigint        GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  code        text          NOT NULL CHECK (code IN ('merchant_available',
                                                     'merchant_payouts_in_flight',
                                                     'platform_fees',
                                                     'provider_clearing')),
  merchant_id text          NOT NULL,
  environment text          NOT NULL CHECK (environment IN ('test', 'live')),
  currency    char(3)       NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  -- A running total of many amounts: wider than numeric(14,2), which two maximum payments
  -- (999,999,999,999.00 each) would already overflow.
  balance     numeric(20,2) NOT NULL DEFAULT 0,
  created_at  timestamptz   NOT NULL,
  UNIQUE (merchant_id, environment, currency, code)
);

CREATE TABLE journal_transactions (
  id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind         text        NOT NULL CHECK (kind IN ('payment_succeeded', 'refund_succeeded',
                                                    'payout_held', 'payout_settled',
                                                    'payout_reversed')),
  -- The business id the transaction is about (pay_…, re_…, po_…). One transaction per kind and
  -- reference: a second message about the same fact cannot post twice.
  reference    text        NOT NULL,
  -- The event that caused the transaction (evt_…); null for holds, which come from a request.
  event_id     text,
  environment  text        NOT NULL CHECK (environment IN ('test', 'live')),
  currency     char(3)     NOT NULL,
  -- When the fact happened (the event's created time); recorded_at is when the ledger posted it.
  effective_at timestamptz NOT NULL,
  recorded_at  timestamptz NOT NULL,
  UNIQUE (kind, reference)
);
CREATE INDEX journal_transactions_event_idx ON journal_transactions (event_id);

CREATE TABLE postings (
  id             bigint        GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  transaction_id bigint        NOT NULL REFERENCES journal_transactions (id),
  account_id     bigint        NOT NULL REFERENCES accounts (id),
  amount         numeric(14,2) NOT NULL CHECK (amount <> 0),
  -- The account's balance right after this posting; set by the trigger, never by the writer.
  balance_after  numeric(20,2) NOT NULL,
  recorded_at    timestamptz   NOT NULL
);
-- Statements: an account's postings in a period, in posting order.
CREATE INDEX postings_account_idx ON postings (account_id, recorded_at, id);
CREATE INDEX postings_transaction_idx ON postings (transaction_id);

-- A posting moves its account's balance, and must stay within its transaction's environment and
-- currency.
CREATE FUNCTION ledger_apply_posting() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE accounts a
     SET balance = a.balance + NEW.amount
    FROM journal_transactions t
   WHERE a.id = NEW.account_id
     AND t.id = NEW.transaction_id
     AND t.environment = a.environment
     AND t.currency = a.currency
  RETURNING a.balance INTO NEW.balance_after;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'posting to account % is outside the environment or currency of transaction %',
      NEW.account_id, NEW.transaction_id;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER postings_apply BEFORE INSERT ON postings
  FOR EACH ROW EXECUTE FUNCTION ledger_apply_posting();

-- A balance changes only through a posting (the trigger above runs one level deep), and an
-- account never changes what it is.
CREATE FUNCTION ledger_guard_account() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'accounts are never deleted';
  END IF;
  IF NEW.code <> OLD.code OR NEW.merchant_id <> OLD.merchant_id
     OR NEW.environment <> OLD.environment OR NEW.currency <> OLD.currency
     OR NEW.created_at <> OLD.created_at THEN
    RAISE EXCEPTION 'account % cannot change what it is', OLD.id;
  END IF;
  IF NEW.balance <> OLD.balance AND pg_trigger_depth() < 2 THEN
    RAISE EXCEPTION 'the balance of account % changes only through a posting', OLD.id;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER accounts_guard BEFORE UPDATE OR DELETE ON accounts
  FOR EACH ROW EXECUTE FUNCTION ledger_guard_account();

-- Corrections are new transactions, never edits.
CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only (% refused); correct with a new transaction',
    TG_TABLE_NAME, TG_OP;
END $$;
CREATE TRIGGER journal_transactions_append_only BEFORE UPDATE OR DELETE ON journal_transactions
  FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
CREATE TRIGGER journal_transactions_no_truncate BEFORE TRUNCATE ON journal_transactions
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_append_only();
CREATE TRIGGER postings_append_only BEFORE UPDATE OR DELETE ON postings
  FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
CREATE TRIGGER postings_no_truncate BEFORE TRUNCATE ON postings
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_append_only();
CREATE TRIGGER accounts_no_truncate BEFORE TRUNCATE ON accounts
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_append_only();

-- At commit, every transaction that received a posting sums to zero (checked once per posting,
-- so a posting added to an old transaction later is checked too).
CREATE FUNCTION ledger_check_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  total numeric;
BEGIN
  SELECT sum(amount) INTO total FROM postings WHERE transaction_id = NEW.transaction_id;
  IF total <> 0 THEN
    RAISE EXCEPTION 'journal transaction % does not balance: its postings sum to %',
      NEW.transaction_id, total;
  END IF;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER postings_balanced AFTER INSERT ON postings
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION ledger_check_balanced();

-- Payout holds (docs/ledger.md, "Holds"): one row per payout id, the hold's current state. The
-- money itself moves only through journal transactions (payout_held, payout_settled,
-- payout_reversed); this table remembers each payout's outcome so that a replayed request gets
-- the original answer and each payout settles or reverses exactly once.
CREATE TABLE payout_holds (
  payout_id     text          PRIMARY KEY,
  merchant_id   text          NOT NULL,
  environment   text          NOT NULL CHECK (environment IN ('test', 'live')),
  currency      char(3)       NOT NULL,
  amount        numeric(14,2) NOT NULL CHECK (amount > 0),
  status        text          NOT NULL CHECK (status IN ('held', 'refused', 'settled',
                                                         'reversed')),
  -- The available balance right after the hold request was decided (after the debit when held,
  -- unchanged when refused); null when the payout became known through an event, not a request.
  balance_after numeric(20,2),
  created_at    timestamptz   NOT NULL,
  updated_at    timestamptz   NOT NULL
);
CREATE INDEX payout_holds_held_idx ON payout_holds (merchant_id, environment, currency)
  WHERE status = 'held';

-- Events the ledger consumed but could never apply (malformed, or contradicting what the ledger
-- knows), kept whole for the operator; the audit reports them.
CREATE TABLE ledger_anomalies (
  id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  message_id   text        NOT NULL,
  message_type text        NOT NULL,
  message_key  text        NOT NULL,
  merchant_id  text,
  reason       text        NOT NULL,
  payload      bytea       NOT NULL,
  recorded_at  timestamptz NOT NULL
);
