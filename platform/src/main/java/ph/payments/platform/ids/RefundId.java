package ph.payments.platform.ids;

/** A refund. Construction rejects anything but a well-formed id. */
public record RefundId(String value) implements TypedId {

  public RefundId {
    IdType.REFUND.parse(value);
  }

  public static RefundId generate() {
    return new RefundId(IdType.REFUND.generate());
  }

  @Override
  public String toString() {
    return value;
  }
}
