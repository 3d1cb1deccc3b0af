package ph.payments.gateway.auth;

/**
 * Order of the {@code /v1} (and {@code /embed/v1}) filters: who you are, then how often you may
 * ask.
 */
public final class AuthOrder {

  /**
   * CORS of the embed API ({@code /embed/v1}), outermost, so that every answer there (a preflight,
   * a refusal by any later filter, an error) carries its headers.
   */
  public static final int EMBED_CORS = 10;

  /** Per-client-address limits of what has no key yet (edge/), before any key is looked at. */
  public static final int CLIENT_ADDRESS_LIMIT = 50;

  public static final int AUTHENTICATION = 100;
  public static final int RATE_LIMIT = 200;

  private AuthOrder() {}
}
