-- Issue 19: every operator action on /admin/v1 (and every read of a merchant's data there) is
-- recorded: who (a prefix of the SHA-256 of the operator token, never the token; and the name the
-- operator gave in X-Operator, if any), what (method and route), when, the target (the route's id)
-- and the outcome (HTTP status and error code). Read through GET /admin/v1/audit.
CREATE TABLE operator_audit (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  recorded_at   timestamptz NOT NULL,
  token_hash    text        NOT NULL,
  operator_name text,
  method        text        NOT NULL,
  route         text        NOT NULL,
  path          text        NOT NULL,
  target        text,
  status        integer     NOT NULL,
  error_code    text,
  request       json
);
CREATE INDEX operator_audit_target_idx ON operator_audit (target, id) WHERE target IS NOT NULL;

-- The operator's view of one merchant's command log (GET /admin/v1/merchants/{id}/commands).
CREATE INDEX commands_merchant_idx ON commands (merchant_id, command_id)
  WHERE merchant_id IS NOT NULL;
