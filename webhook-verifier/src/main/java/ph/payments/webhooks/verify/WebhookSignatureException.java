package ph.payments.webhooks.verify;

/**
 * A webhook delivery failed verification; reject it (for example with 400) and do not act on it.
 */
public final class WebhookSignatureException extends Exception {

  private static final long serialVersionUID = 1L;

  /** Why a delivery was rejected. */
  public enum Reason {
    /** The signature header is missing, or is not {@code t=<unix>,v1=<hex>[,v1=<hex>…]}. */
    MALFORMED_HEADER,
    /** The header has a timestamp but no well-formed {@code v1} value. */
    NO_SIGNATURE,
    /** The timestamp is further from now than the tolerance, in either direction. */
    TIMESTAMP_OUTSIDE_TOLERANCE,
    /** No {@code v1} value matches the body and secret: altered, or signed with another secret. */
    SIGNATURE_MISMATCH
  }

  private final Reason reason;

  public WebhookSignatureException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
