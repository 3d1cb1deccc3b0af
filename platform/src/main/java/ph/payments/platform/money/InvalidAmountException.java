package ph.payments.platform.money;

/** An amount or currency that cannot be represented exactly, or is malformed. */
public final class InvalidAmountException extends IllegalArgumentException {

  public InvalidAmountException(String message) {
    super(message);
  }
}
