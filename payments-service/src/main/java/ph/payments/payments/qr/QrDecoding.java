package ph.payments.payments.qr;

import java.util.Objects;

/**
 * The outcome of reading a QR payload: either the value or the reason it was refused. A refused
 * payload is an expected outcome (a provider or a merchant can hand us anything), so it is a value
 * and not an exception.
 *
 * @param <T> what a successful read produces
 */
public sealed interface QrDecoding<T> permits QrDecoding.Accepted, QrDecoding.Rejected {

  /** The payload was read; {@code value} is what it holds. */
  record Accepted<T>(T value) implements QrDecoding<T> {
    public Accepted {
      Objects.requireNonNull(value, "value");
    }
  }

  /**
   * The payload was refused.
   *
   * @param reason the rule that failed
   * @param detail a human-readable sentence naming the offending tag or position
   */
  record Rejected<T>(QrRejection reason, String detail) implements QrDecoding<T> {
    public Rejected {
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(detail, "detail");
    }

    /** The same rejection, typed for another kind of result. */
    public <U> Rejected<U> retype() {
      return new Rejected<>(reason, detail);
    }
  }

  /** True for {@link Accepted}. */
  default boolean isAccepted() {
    return this instanceof Accepted;
  }

  /**
   * The value, for callers that produced the payload themselves and treat a rejection as a bug.
   *
   * @throws IllegalStateException naming the reason, when this is a {@link Rejected}
   */
  default T orElseThrow() {
    if (this instanceof Accepted<T> accepted) {
      return accepted.value();
    }
    Rejected<T> rejected = (Rejected<T>) this;
    throw new IllegalStateException(
        "QR payload rejected: " + rejected.reason() + ": " + rejected.detail());
  }
}
