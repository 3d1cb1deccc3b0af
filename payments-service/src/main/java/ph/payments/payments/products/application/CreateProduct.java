package ph.payments.payments.products.application;

import com.fasterxml.jackson.databind.JsonNode;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.contracts.commands.CommandTypes;
import ph.payments.payments.products.domain.Product;
import ph.payments.payments.products.persistence.JdbcProducts;
import ph.payments.payments.products.web.ProductJson;
import ph.payments.platform.commands.CommandHandler;
import ph.payments.platform.commands.CommandReplies;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.json.Json;

/**
 * {@code products.create}: a product of the merchant's catalog (SPEC part 2 "Product"). The gateway
 * checked the body's fields and limits. A missing {@code sku} becomes the next {@code SKU-NNNNN} of
 * the merchant's environment, a missing {@code barcode} a restricted-circulation EAN-13; a sku or
 * barcode another product of the merchant's environment has (case-insensitively) is 409 {@code
 * duplicate_sku}. No event: SPEC's only product event is {@code product.stock_adjusted}.
 */
@Singleton
public class CreateProduct implements CommandHandler {

  public static final String TYPE = CommandTypes.PRODUCTS_CREATE;

  private final JdbcProducts products;
  private final Clock clock;

  public CreateProduct(JdbcProducts products, Clock clock) {
    this.products = products;
    this.clock = clock;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public CommandReply handle(Connection connection, Command command) throws SQLException {
    JsonNode body = command.body();
    String merchant = command.merchantId();
    String env = command.environment();
    String sku = ProductFields.text(body, "sku");
    if (sku == null) {
      sku = ProductFields.generateSku(connection, products, merchant, env);
    }
    String barcode = ProductFields.text(body, "barcode");
    if (barcode == null) {
      barcode = ProductFields.generateBarcode(connection, products, merchant, env);
    }
    Instant now = clock.instant();
    Integer stock = ProductFields.integer(body, "stock");
    Product product =
        new Product(
            command.resourceId(),
            merchant,
            env,
            ProductFields.text(body, "name"),
            ProductFields.text(body, "description"),
            ProductFields.price(body),
            body.hasNonNull("currency") ? body.get("currency").asText() : "PHP",
            sku,
            barcode,
            ProductFields.text(body, "image_url"),
            body.path("track_inventory").asBoolean(false),
            stock == null ? 0 : stock,
            ProductFields.integer(body, "low_stock_threshold"),
            false,
            ProductFields.text(body, "category"),
            body.hasNonNull("metadata") ? Json.toText(body.get("metadata")) : "{}",
            now,
            now);
    if (!products.insert(connection, product)) {
      return CommandReplies.rejected(
          command,
          ErrorCode.DUPLICATE_SKU,
          ProductFields.duplicateMessage(connection, products, product));
    }
    return CommandReplies.ok(command, 201, ProductJson.of(product));
  }
}
