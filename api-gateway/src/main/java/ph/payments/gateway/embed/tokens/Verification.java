package ph.payments.gateway.embed.tokens;

/**
 * The outcome of checking an embed token: every refusal is answered alike (401 {@code
 * invalid_token}); the reason is for tests and never reaches the caller.
 */
public sealed interface Verification {

  /** A good token of a merchant in good standing. */
  record Verified(EmbedClaims claims, String merchantName) implements Verification {}

  /** Refused, for {@code reason}. */
  record Refused(Reason reason) implements Verification {}

  /** Why a token was refused. */
  enum Reason {
    /** Not a compact JWS, a header or claims that do not parse, or too long. */
    MALFORMED,
    /** {@code alg} other than ES256 ({@code none}, HS256, …) or {@code typ} other than JWT. */
    ALGORITHM,
    /** No {@code kid}, or none of our keys has it. */
    UNKNOWN_KEY,
    /** The key was retired longer ago than the longest token lives (plus a minute). */
    KEY_RETIRED,
    /** The signature does not verify with the key named by {@code kid}. */
    SIGNATURE,
    /** {@code iss} is not this gateway. */
    ISSUER,
    /** {@code exp} has passed. */
    EXPIRED,
    /** {@code iat} lies further in the future than the clock leeway. */
    NOT_YET_VALID,
    /** {@code exp} − {@code iat} is not within 1 s … 86400 s. */
    LIFETIME,
    /** A claim is missing or has a value no token of ours carries. */
    CLAIMS,
    /** The merchant is unknown, deactivated, or (for a live token) not live. */
    MERCHANT
  }
}
