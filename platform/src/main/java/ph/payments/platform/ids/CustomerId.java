package ph.payments.platform.ids;

/** A customer of a merchant. Construction rejects anything but a well-formed id. */
public record CustomerId(String value) implements TypedId {

  public CustomerId {
    IdType.CUSTOMER.parse(value);
  }

  public static CustomerId generate() {
    return new CustomerId(IdType.CUSTOMER.generate());
  }

  @Override
  public String toString() {
    return value;
  }
}
