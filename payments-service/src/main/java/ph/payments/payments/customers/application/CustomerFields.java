package ph.payments.payments.customers.application;

import com.fasterxml.jackson.databind.JsonNode;
import ph.payments.payments.customers.domain.Address;

/**
 * Reads the parts of a customer body the gateway validated (docs/catalog.md): an empty email means
 * none; an address given on update is merged part by part onto the stored one.
 */
final class CustomerFields {

  static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value == null || value.isNull() ? null : value.asText();
  }

  static String email(JsonNode body) {
    String email = text(body, "email");
    return email == null || email.isEmpty() ? null : email;
  }

  /**
   * @param base the stored address an update merges onto, or null
   */
  static Address address(JsonNode given, Address base) {
    if (given == null || given.isNull()) {
      return null;
    }
    return new Address(
        part(given, "line1", base == null ? null : base.line1()),
        part(given, "line2", base == null ? null : base.line2()),
        part(given, "city", base == null ? null : base.city()),
        part(given, "region", base == null ? null : base.region()),
        part(given, "postal_code", base == null ? null : base.postalCode()),
        part(given, "country", base == null ? Address.DEFAULT_COUNTRY : base.country()));
  }

  private static String part(JsonNode given, String field, String otherwise) {
    return given.has(field) ? text(given, field) : otherwise;
  }

  private CustomerFields() {}
}
