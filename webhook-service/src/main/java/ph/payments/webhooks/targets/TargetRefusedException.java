package ph.payments.webhooks.targets;

import java.net.UnknownHostException;

/**
 * A delivery target resolves to an address the deployment does not let webhooks reach. An {@link
 * UnknownHostException} so that the HTTP client treats it like a name that does not resolve: no
 * connection is made.
 *
 * <p>The message says which address and why, for the operator's log only. Merchants see {@link
 * #UNIFORM_ERROR}, the same for every refused target, so the attempt log cannot be used to learn
 * what lives on the internal network.
 */
public final class TargetRefusedException extends UnknownHostException {

  /** What the attempt log records for every refused target. */
  public static final String UNIFORM_ERROR =
      "target refused: webhooks may only be sent to public addresses";

  private static final long serialVersionUID = 1L;

  public TargetRefusedException(String detail) {
    super(detail);
  }
}
