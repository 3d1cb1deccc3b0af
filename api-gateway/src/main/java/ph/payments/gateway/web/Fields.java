package ph.payments.gateway.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.core.annotation.Nullable;
import java.math.BigDecimal;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import ph.payments.platform.errors.ApiException;

/**
 * Reads and checks a JSON request body field by field, collecting every problem, so one 400 {@code
 * invalid_request} names each bad field in {@code issues}. Unknown fields, wrong types and
 * out-of-range values are all reported the same way. Typical use:
 *
 * <pre>{@code
 * Fields body = Fields.of(json).allowOnly("name", "email");
 * String name = body.requiredString("name", 1, 200);
 * String email = body.requiredEmail("email");
 * body.validate();
 * }</pre>
 */
public final class Fields {

  // Deliberately simple: one @, no spaces, a dot in the domain. Deliverability is not ours to
  // judge.
  private static final Pattern EMAIL = Pattern.compile("^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$");
  private static final Pattern CURRENCY = Pattern.compile("^[A-Z]{3}$");

  private final JsonNode body;
  private final Map<String, String> issues = new LinkedHashMap<>();

  private Fields(JsonNode body) {
    this.body = body;
  }

  /** A body that must be a JSON object; anything else is one issue on {@code body}. */
  public static Fields of(@Nullable JsonNode body) {
    if (body == null || body.isNull() || body.isMissingNode()) {
      Fields fields =
          new Fields(com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode());
      fields.issues.put("body", "a JSON object is required");
      return fields;
    }
    if (!body.isObject()) {
      Fields fields =
          new Fields(com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode());
      fields.issues.put("body", "must be a JSON object");
      return fields;
    }
    return new Fields(body);
  }

  /** Reports every field not named here. */
  public Fields allowOnly(String... names) {
    Set<String> allowed = Set.of(names);
    Iterator<String> present = body.fieldNames();
    while (present.hasNext()) {
      String name = present.next();
      if (!allowed.contains(name)) {
        issue(name, "unknown field");
      }
    }
    return this;
  }

  public boolean has(String name) {
    return body.has(name) && !body.get(name).isNull();
  }

  public @Nullable String requiredString(String name, int minLength, int maxLength) {
    if (!has(name)) {
      issue(name, "is required");
      return null;
    }
    return string(name, minLength, maxLength);
  }

  public @Nullable String optionalString(String name, int minLength, int maxLength) {
    return has(name) ? string(name, minLength, maxLength) : null;
  }

  public @Nullable String requiredEmail(String name) {
    String value = requiredString(name, 3, 255);
    return value == null ? null : email(name, value);
  }

  public @Nullable String optionalEmail(String name) {
    String value = optionalString(name, 3, 255);
    return value == null ? null : email(name, value);
  }

  /** An absolute http(s) URI. */
  public @Nullable String optionalUri(String name) {
    String value = optionalString(name, 1, 2048);
    if (value == null) {
      return null;
    }
    try {
      URI uri = new URI(value);
      String scheme = uri.getScheme();
      if (uri.getHost() == null || scheme == null || !scheme.matches("(?i)https?")) {
        issue(name, "must be an absolute http or https URI");
        return null;
      }
      return value;
    } catch (URISyntaxException e) {
      issue(name, "must be a valid URI");
      return null;
    }
  }

  public @Nullable String optionalPattern(String name, Pattern pattern, String description) {
    String value = optionalString(name, 1, 255);
    if (value != null && !pattern.matcher(value).matches()) {
      issue(name, "must " + description);
      return null;
    }
    return value;
  }

  /**
   * An ISO-8601 date-time string with its offset or {@code Z} (e.g. {@code
   * 2026-12-01T18:00:00+08:00}); a time without a zone is ambiguous and refused.
   */
  public @Nullable OffsetDateTime optionalDateTime(String name) {
    String value = optionalString(name, 1, 64);
    if (value == null) {
      return null;
    }
    try {
      return OffsetDateTime.parse(value);
    } catch (DateTimeParseException e) {
      issue(name, "must be an ISO-8601 date-time with an offset, e.g. 2026-12-01T18:00:00+08:00");
      return null;
    }
  }

  /** Three uppercase letters; {@code fallback} when absent. */
  public @Nullable String currency(String name, String fallback) {
    if (!has(name)) {
      return fallback;
    }
    String value = string(name, 3, 3);
    if (value != null && !CURRENCY.matcher(value).matches()) {
      issue(name, "must be a 3-letter uppercase currency code");
      return null;
    }
    return value;
  }

  /** One of {@code allowed}. */
  public @Nullable String optionalEnum(String name, Set<String> allowed) {
    String value = optionalString(name, 1, 100);
    if (value != null && !allowed.contains(value)) {
      issue(name, "must be one of " + String.join(", ", allowed.stream().sorted().toList()));
      return null;
    }
    return value;
  }

  /**
   * A JSON number with at most two decimals between {@code min} and {@code max}; never read through
   * {@code double}.
   */
  public @Nullable BigDecimal requiredAmount(
      String name, BigDecimal min, @Nullable BigDecimal max) {
    if (!has(name)) {
      issue(name, "is required");
      return null;
    }
    return amount(name, min, max);
  }

  public @Nullable BigDecimal optionalAmount(
      String name, BigDecimal min, @Nullable BigDecimal max) {
    return has(name) ? amount(name, min, max) : null;
  }

  public @Nullable Integer optionalInteger(String name, int min, int max) {
    if (!has(name)) {
      return null;
    }
    JsonNode node = body.get(name);
    if (!node.isIntegralNumber() || !node.canConvertToInt()) {
      issue(name, "must be an integer");
      return null;
    }
    int value = node.intValue();
    if (value < min || value > max) {
      issue(name, "must be between " + min + " and " + max);
      return null;
    }
    return value;
  }

  public @Nullable Boolean optionalBoolean(String name) {
    if (!has(name)) {
      return null;
    }
    JsonNode node = body.get(name);
    if (!node.isBoolean()) {
      issue(name, "must be true or false");
      return null;
    }
    return node.booleanValue();
  }

  public @Nullable ObjectNode optionalObject(String name) {
    if (!has(name)) {
      return null;
    }
    JsonNode node = body.get(name);
    if (!node.isObject()) {
      issue(name, "must be an object");
      return null;
    }
    return (ObjectNode) node;
  }

  /** Each element a string from {@code allowed}. */
  public @Nullable Set<String> optionalStringSet(String name, Set<String> allowed) {
    if (!has(name)) {
      return null;
    }
    JsonNode node = body.get(name);
    if (!node.isArray()) {
      issue(name, "must be an array of strings");
      return null;
    }
    java.util.LinkedHashSet<String> values = new java.util.LinkedHashSet<>();
    for (JsonNode element : node) {
      if (!element.isTextual() || !allowed.contains(element.textValue())) {
        issue(name, "contains an unknown value: " + abbreviate(element.toString()));
        return null;
      }
      values.add(element.textValue());
    }
    return values;
  }

  /** The number of elements of the array {@code name}, or -1 when it is absent or no array. */
  public int arraySize(String name) {
    return has(name) && body.get(name).isArray() ? body.get(name).size() : -1;
  }

  /**
   * Records each issue of {@code nested}, the fields of this body's object {@code name}, as {@code
   * name.field} (e.g. {@code address.country}).
   */
  public void issues(String name, Fields nested) {
    nested.issues.forEach((field, problem) -> issue(name + "." + field, problem));
  }

  /** Whether the field is present with the JSON value null (a request to clear it). */
  public boolean isNull(String name) {
    return body.has(name) && body.get(name).isNull();
  }

  /** Records a problem found by the caller's own rule. */
  public void issue(String name, String problem) {
    issues.putIfAbsent(name, problem);
  }

  public boolean valid() {
    return issues.isEmpty();
  }

  /**
   * @throws ApiException 400 {@code invalid_request} naming every bad field
   */
  public void validate() {
    if (!issues.isEmpty()) {
      throw ApiException.invalid(issues);
    }
  }

  private @Nullable String string(String name, int minLength, int maxLength) {
    JsonNode node = body.get(name);
    if (!node.isTextual()) {
      issue(name, "must be a string");
      return null;
    }
    String value = node.textValue();
    int length = value.codePointCount(0, value.length());
    if (length < minLength || length > maxLength) {
      issue(
          name,
          minLength == maxLength
              ? "must be exactly " + minLength + " characters"
              : "must be " + minLength + " to " + maxLength + " characters");
      return null;
    }
    return value;
  }

  private @Nullable String email(String name, String value) {
    if (!EMAIL.matcher(value).matches()) {
      issue(name, "must be an email address");
      return null;
    }
    return value;
  }

  private @Nullable BigDecimal amount(String name, BigDecimal min, @Nullable BigDecimal max) {
    JsonNode node = body.get(name);
    if (!node.isNumber()) {
      issue(name, "must be a number");
      return null;
    }
    BigDecimal value = node.decimalValue();
    if (value.stripTrailingZeros().scale() > 2) {
      issue(name, "must be a multiple of 0.01");
      return null;
    }
    if (value.compareTo(min) < 0) {
      issue(name, "must be at least " + min.toPlainString());
      return null;
    }
    if (max != null && value.compareTo(max) > 0) {
      issue(name, "must be at most " + max.toPlainString());
      return null;
    }
    return value.setScale(2);
  }

  private static String abbreviate(String value) {
    return value.length() <= 40 ? value : value.substring(0, 40) + "…";
  }
}
