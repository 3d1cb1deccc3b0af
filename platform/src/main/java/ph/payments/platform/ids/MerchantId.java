package ph.payments.platform.ids;

/** A merchant account. Construction rejects anything but a well-formed id. */
public record MerchantId(String value) implements TypedId {

  public MerchantId {
    IdType.MERCHANT.parse(value);
  }

  public static MerchantId generate() {
    return new MerchantId(IdType.MERCHANT.generate());
  }

  @Override
  public String toString() {
    return value;
  }
}
