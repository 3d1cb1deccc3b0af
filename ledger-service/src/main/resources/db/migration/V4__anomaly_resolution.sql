-- Issue 19: operators list parked ledger anomalies and resolve them through the operator API.
-- A resolved anomaly stays (it is history the audit can show); it no longer counts as open.
ALTER TABLE ledger_anomalies
  ADD COLUMN resolved_at timestamptz,
  ADD COLUMN resolution  text;
CREATE INDEX ledger_anomalies_open_idx ON ledger_anomalies (id) WHERE resolved_at IS NULL;
