package ph.payments.payments.qr;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One EMVCo data object: a two-digit id, a two-digit length and a value of 1 to 99 characters.
 *
 * <p>A template (merchant account information 26–51, additional data 62, language template 64,
 * unreserved templates 80–99) is a data object whose value is itself a run of data objects; for
 * those {@link #children()} holds the parsed objects and {@link #value()} their exact
 * concatenation. Keeping both lets the decoder hand back the text it read, byte for byte, while
 * callers still navigate sub-tags.
 *
 * @param id two ASCII digits
 * @param value the value as it appears in the payload, 1 to 99 characters
 * @param children the parsed sub-objects of a template, in payload order; empty for a primitive
 */
public record Tlv(String id, String value, List<Tlv> children) {

  /** EMVCo lengths are two decimal digits, and a length of zero is not allowed. */
  public static final int MAX_VALUE_LENGTH = 99;

  public Tlv {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(value, "value");
    if (!isTwoDigits(id)) {
      throw new IllegalArgumentException("data object id must be two digits: '" + id + "'");
    }
    if (value.isEmpty() || value.length() > MAX_VALUE_LENGTH) {
      throw new IllegalArgumentException(
          "data object "
              + id
              + " must have 1.."
              + MAX_VALUE_LENGTH
              + " characters, has "
              + value.length());
    }
    children = List.copyOf(children);
    if (!children.isEmpty() && !value.equals(concat(children))) {
      throw new IllegalArgumentException("template " + id + " value differs from its children");
    }
  }

  /** A data object holding {@code value} as is. */
  public static Tlv primitive(String id, String value) {
    return new Tlv(id, value, List.of());
  }

  /** A template whose value is the encoding of {@code children}, in the order given. */
  public static Tlv template(String id, List<Tlv> children) {
    if (children.isEmpty()) {
      throw new IllegalArgumentException("template " + id + " needs at least one data object");
    }
    return new Tlv(id, concat(children), children);
  }

  /** True when this object was built or parsed as a template. */
  public boolean isTemplate() {
    return !children.isEmpty();
  }

  /** The first sub-object with {@code childId}; empty for primitives. */
  public Optional<Tlv> child(String childId) {
    return children.stream().filter(c -> c.id.equals(childId)).findFirst();
  }

  /** Id, two-digit length and value, as this object appears in a payload. */
  public String encode() {
    return id + twoDigits(value.length()) + value;
  }

  static String concat(List<Tlv> objects) {
    StringBuilder out = new StringBuilder();
    for (Tlv object : objects) {
      out.append(object.encode());
    }
    return out.toString();
  }

  static String twoDigits(int n) {
    return n < 10 ? "0" + n : Integer.toString(n);
  }

  static boolean isTwoDigits(String s) {
    return s.length() == 2 && isDigit(s.charAt(0)) && isDigit(s.charAt(1));
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }
}
