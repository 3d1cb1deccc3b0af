package ph.payments.webhooks.targets;

import java.net.UnknownHostException;

/**
 * A delivery target resolves to an address live mode must not call. An {@link UnknownHostException}
 * so that the HTTP client treats it like a name that does not resolve: no connection is made.
 */
public final class TargetRefusedException extends UnknownHostException {

  private static final long serialVersionUID = 1L;

  public TargetRefusedException(String message) {
    super(message);
  }
}
