package ph.payments.platform.ids;

/** A payment. Construction rejects anything but a well-formed id. */
public record PaymentId(String value) implements TypedId {

  public PaymentId {
    IdType.PAYMENT.parse(value);
  }

  public static PaymentId generate() {
    return new PaymentId(IdType.PAYMENT.generate());
  }

  @Override
  public String toString() {
    return value;
  }
}
