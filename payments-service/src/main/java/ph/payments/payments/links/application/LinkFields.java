package ph.payments.payments.links.application;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;

/** Reading the (gateway-validated) values of a payment link body. */
final class LinkFields {

  static String text(JsonNode body, String name) {
    JsonNode node = body.get(name);
    return node == null || node.isNull() ? null : node.asText();
  }

  static BigDecimal amount(JsonNode body) {
    JsonNode node = body.get("amount");
    return node == null || node.isNull()
        ? null
        : node.decimalValue().setScale(2, RoundingMode.UNNECESSARY);
  }

  /**
   * {@code expires_at}, an ISO-8601 date-time with its offset (e.g. {@code …T18:00:00+08:00}), to
   * the whole second: the resource shows it in Unix seconds, and the link expires at exactly the
   * second it shows.
   */
  static Instant expiresAt(JsonNode body) {
    String value = text(body, "expires_at");
    return value == null
        ? null
        : OffsetDateTime.parse(value).toInstant().truncatedTo(ChronoUnit.SECONDS);
  }

  private LinkFields() {}
}
