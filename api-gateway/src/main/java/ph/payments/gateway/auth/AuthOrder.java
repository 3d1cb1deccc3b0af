package ph.payments.gateway.auth;

/** Order of the {@code /v1} filters: who you are, then how often you may ask. */
public final class AuthOrder {

  public static final int AUTHENTICATION = 100;
  public static final int RATE_LIMIT = 200;

  private AuthOrder() {}
}
