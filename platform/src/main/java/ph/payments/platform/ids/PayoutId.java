package ph.payments.platform.ids;

/** A payout. Construction rejects anything but a well-formed id. */
public record PayoutId(String value) implements TypedId {

  public PayoutId {
    IdType.PAYOUT.parse(value);
  }

  public static PayoutId generate() {
    return new PayoutId(IdType.PAYOUT.generate());
  }

  @Override
  public String toString() {
    return value;
  }
}
