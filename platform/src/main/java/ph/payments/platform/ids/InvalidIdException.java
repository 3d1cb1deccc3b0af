package ph.payments.platform.ids;

/** A string that is not a well-formed id of the expected kind. */
public final class InvalidIdException extends IllegalArgumentException {

  private final IdType expected;

  public InvalidIdException(IdType expected, String value) {
    super("not a " + expected.prefix() + "_ id: " + abbreviate(value));
    this.expected = expected;
  }

  public IdType expected() {
    return expected;
  }

  // Ids arrive from clients; never echo an unbounded string into logs or messages.
  private static String abbreviate(String value) {
    return value.length() <= 64 ? value : value.substring(0, 64) + "…";
  }
}
