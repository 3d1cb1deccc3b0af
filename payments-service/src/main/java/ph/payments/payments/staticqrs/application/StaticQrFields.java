package ph.payments.payments.staticqrs.application;

import com.fasterxml.jackson.databind.JsonNode;

/** Reading the (gateway-validated) values of a static QR body. */
final class StaticQrFields {

  static String text(JsonNode body, String name) {
    JsonNode node = body.get(name);
    return node == null || node.isNull() ? null : node.asText();
  }

  private StaticQrFields() {}
}
