package ph.payments.platform.ids;

/** An API key (its id, never its secret). Construction rejects anything but a well-formed id. */
public record ApiKeyId(String value) implements TypedId {

  public ApiKeyId {
    IdType.API_KEY.parse(value);
  }

  public static ApiKeyId generate() {
    return new ApiKeyId(IdType.API_KEY.generate());
  }

  @Override
  public String toString() {
    return value;
  }
}
