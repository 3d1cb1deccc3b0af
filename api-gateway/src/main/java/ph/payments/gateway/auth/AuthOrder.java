package ph.payments.gateway.auth;

/** Order of the {@code /v1} filters: who you are, then how often you may ask. */
public final class AuthOrder {

  /** Per-client-address limits of what has no key yet (edge/), before any key is looked at. */
  public static final int CLIENT_ADDRESS_LIMIT = 50;

  public static final int AUTHENTICATION = 100;
  public static final int RATE_LIMIT = 200;

  private AuthOrder() {}
}
