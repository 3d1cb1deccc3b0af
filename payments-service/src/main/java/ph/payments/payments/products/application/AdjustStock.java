package ph.payments.payments.products.application;

import com.fasterxml.jackson.databind.JsonNode;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Map;
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

/**
 * {@code products.adjust_stock}: {@code {quantity, reason}} adds a signed quantity to the stock,
 * {@code {set, reason}} replaces it. Applied under the product's row lock, so concurrent
 * adjustments queue and each sees the stock the previous one left. Stock never goes below 0: an
 * adjustment that would is refused whole, 400 {@code invalid_request} on {@code quantity}; nor
 * above {@link #MAX_STOCK}. A product that does not track inventory has no stock to adjust: 400
 * {@code invalid_state}. Every applied adjustment writes {@code product.stock_adjusted}.
 */
@Singleton
public class AdjustStock implements CommandHandler {

  public static final String TYPE = CommandTypes.PRODUCTS_ADJUST_STOCK;

  /**
   * The largest stock a product can hold (the gateway's limit on {@code stock} and {@code set}).
   */
  public static final int MAX_STOCK = 1_000_000_000;

  private final MerchantProducts merchantProducts;
  private final JdbcProducts products;
  private final StockEvents events;
  private final Clock clock;

  public AdjustStock(
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
    Product product;
    try {
      product =
          merchantProducts.require(
              connection, command.resourceId(), command.merchantId(), command.environment(), true);
    } catch (ApiException e) {
      return CommandReplies.rejected(command, e.code(), e.getMessage());
    }
    if (!product.trackInventory()) {
      return CommandReplies.rejected(
          command,
          ErrorCode.INVALID_STATE,
          "This product does not track inventory; set track_inventory to true first.");
    }
    JsonNode body = command.body();
    String reason = ProductFields.text(body, "reason");
    Integer set = ProductFields.integer(body, "set");
    long target;
    if (set != null) {
      target = set;
    } else {
      long quantity = body.path("quantity").asLong();
      target = product.stock() + quantity;
      if (target < 0) {
        return CommandReplies.invalid(
            command,
            Map.of(
                "quantity",
                "would take the stock below 0: the stock is "
                    + product.stock()
                    + ", so the quantity must be at least "
                    + -product.stock()));
      }
      if (target > MAX_STOCK) {
        return CommandReplies.invalid(
            command, Map.of("quantity", "would take the stock above " + MAX_STOCK));
      }
    }
    Product adjusted = product.withStock((int) target, clock.instant());
    products.updateStock(connection, adjusted);
    events.adjusted(connection, product, adjusted, set, reason);
    return CommandReplies.ok(command, 200, ProductJson.of(adjusted));
  }
}
