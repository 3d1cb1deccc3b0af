-- Keys that sign embed tokens (docs/decisions.md "Embed tokens", docs/security.md). One is active
-- (retired_at null) and signs new tokens; a rotation retires it and makes a new one. A retired key
-- still verifies tokens for 86400 s + 60 s after its retirement (the longest token lifetime, plus a
-- minute), then leaves the JWKS; its row is kept so its kid is never reused.
CREATE TABLE embed_signing_keys (
  kid         text        PRIMARY KEY,
  algorithm   text        NOT NULL CHECK (algorithm = 'ES256'),
  -- The public JWK (EC P-256), in clear: it is published at /.well-known/jwks.json.
  public_jwk  json        NOT NULL,
  -- The private JWK sealed with REPLY_SEALING_KEY (platform ReplySealer, AES-256-GCM), bound to
  -- this kid: 'sealed:v1:…'. Never in clear at rest.
  private_jwk text        NOT NULL CHECK (private_jwk LIKE 'sealed:v1:%'),
  created_at  timestamptz NOT NULL,
  retired_at  timestamptz,
  CHECK (retired_at IS NULL OR retired_at >= created_at)
);
-- At most one active key, whatever two gateway replicas starting (or rotating) at once try.
CREATE UNIQUE INDEX embed_signing_keys_one_active ON embed_signing_keys ((true))
  WHERE retired_at IS NULL;
