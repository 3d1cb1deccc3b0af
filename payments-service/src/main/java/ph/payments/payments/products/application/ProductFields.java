package ph.payments.payments.products.application;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import ph.payments.payments.products.domain.Ean13;
import ph.payments.payments.products.domain.Product;
import ph.payments.payments.products.domain.Skus;
import ph.payments.payments.products.persistence.JdbcProducts;

/**
 * What creation and update share: reading the (gateway-validated) body's values, generating a
 * missing sku or barcode, and saying which one clashed.
 */
final class ProductFields {

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final int ATTEMPTS = 1000;

  static String text(JsonNode body, String name) {
    JsonNode node = body.get(name);
    return node == null || node.isNull() ? null : node.asText();
  }

  static BigDecimal price(JsonNode body) {
    JsonNode node = body.get("price");
    return node == null || node.isNull()
        ? null
        : node.decimalValue().setScale(2, RoundingMode.UNNECESSARY);
  }

  static Integer integer(JsonNode body, String name) {
    JsonNode node = body.get(name);
    return node == null || node.isNull() ? null : node.intValue();
  }

  /** {@code SKU-NNNNN} from the merchant's sequence, skipping numbers a product already uses. */
  static String generateSku(
      Connection connection, JdbcProducts products, String merchant, String env)
      throws SQLException {
    for (int i = 0; i < ATTEMPTS; i++) {
      String sku = Skus.of(products.nextSkuNumber(connection, merchant, env));
      if (!products.skuTaken(connection, merchant, env, sku)) {
        return sku;
      }
    }
    throw new IllegalStateException("no free SKU number after " + ATTEMPTS + " attempts");
  }

  /** A random restricted-circulation EAN-13 no product of the merchant's environment has. */
  static String generateBarcode(
      Connection connection, JdbcProducts products, String merchant, String env)
      throws SQLException {
    for (int i = 0; i < ATTEMPTS; i++) {
      String barcode = Ean13.restrictedCirculation(() -> RANDOM.nextInt(10));
      if (!products.barcodeTaken(connection, merchant, env, barcode)) {
        return barcode;
      }
    }
    throw new IllegalStateException("no free barcode after " + ATTEMPTS + " attempts");
  }

  /** The message of a 409 {@code duplicate_sku} for {@code p}, naming what clashed. */
  static String duplicateMessage(Connection connection, JdbcProducts products, Product p)
      throws SQLException {
    if (p.sku() != null
        && products.skuTaken(connection, p.merchantId(), p.environment(), p.sku())) {
      return "Another product already has the sku " + p.sku() + ".";
    }
    return "Another product already has the "
        + (p.barcode() == null ? "sku or barcode" : "barcode " + p.barcode())
        + ".";
  }

  private ProductFields() {}
}
