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
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.json.Json;

/**
 * {@code products.update} ({@code PATCH} and {@code POST /v1/products/{id}}): the fields present in
 * the body replace the product's, under its row lock; absent ones stay. {@code null} clears the
 * nullable ones (a cleared sku or barcode is not generated again). {@code metadata} is replaced
 * whole. {@code archived: true} archives, {@code false} restores. A sku or barcode another product
 * has is 409 {@code duplicate_sku}. A change of {@code stock} is a manual adjustment and writes
 * {@code product.stock_adjusted}, like {@code POST /v1/products/{id}/stock_adjustments}.
 */
@Singleton
public class UpdateProduct implements CommandHandler {

  public static final String TYPE = CommandTypes.PRODUCTS_UPDATE;

  private final MerchantProducts merchantProducts;
  private final JdbcProducts products;
  private final StockEvents events;
  private final Clock clock;

  public UpdateProduct(
      MerchantProducts merchantProducts, JdbcProducts products, StockEvents events, Clock clock) {
    this.merchantProducts = merchantProducts;
    this.products = products;
    this.events = events;
    this.clock = clock;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public CommandReply handle(Connection connection, Command command) throws SQLException {
    Product p;
    try {
      p =
          merchantProducts.require(
              connection, command.resourceId(), command.merchantId(), command.environment(), true);
    } catch (ApiException e) {
      return CommandReplies.rejected(command, e.code(), e.getMessage());
    }
    JsonNode b = command.body();
    Instant now = clock.instant();
    Product updated =
        new Product(
            p.id(),
            p.merchantId(),
            p.environment(),
            b.has("name") ? ProductFields.text(b, "name") : p.name(),
            b.has("description") ? ProductFields.text(b, "description") : p.description(),
            b.has("price") ? ProductFields.price(b) : p.price(),
            b.has("currency") ? ProductFields.text(b, "currency") : p.currency(),
            b.has("sku") ? ProductFields.text(b, "sku") : p.sku(),
            b.has("barcode") ? ProductFields.text(b, "barcode") : p.barcode(),
            b.has("image_url") ? ProductFields.text(b, "image_url") : p.imageUrl(),
            b.has("track_inventory") ? b.get("track_inventory").asBoolean() : p.trackInventory(),
            b.has("stock") ? b.get("stock").asInt() : p.stock(),
            b.has("low_stock_threshold")
                ? ProductFields.integer(b, "low_stock_threshold")
                : p.lowStockThreshold(),
            b.has("archived") ? b.get("archived").asBoolean() : p.archived(),
            b.has("category") ? ProductFields.text(b, "category") : p.category(),
            b.has("metadata") ? Json.toText(b.get("metadata")) : p.metadataJson(),
            p.createdAt(),
            now);
    if (!products.update(connection, updated)) {
      return CommandReplies.rejected(
          command,
          ErrorCode.DUPLICATE_SKU,
          ProductFields.duplicateMessage(connection, products, updated));
    }
    if (updated.stock() != p.stock()) {
      events.adjusted(connection, p, updated, updated.stock(), null);
    }
    return CommandReplies.ok(command, 200, ProductJson.of(updated));
  }
}
