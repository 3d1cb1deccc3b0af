package ph.payments.payments.products.application;

import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import ph.payments.payments.events.EventLog;
import ph.payments.payments.products.domain.Product;
import ph.payments.payments.products.web.ProductJson;

/**
 * {@code product.stock_adjusted}, written in the transaction that changed the stock: {@code
 * data.object} is the product as it now is, with an {@code adjustment} object saying what changed
 * it: {@code quantity} (the signed change), {@code set} (the value asked for, or null), {@code
 * reason} (or null), {@code previous_stock} and {@code stock}.
 */
@Singleton
public class StockEvents {

  public static final String TYPE = "product.stock_adjusted";

  private final EventLog events;

  public StockEvents(EventLog events) {
    this.events = events;
  }

  public void adjusted(
      Connection connection, Product before, Product after, Integer set, String reason)
      throws SQLException {
    ObjectNode object = ProductJson.of(after);
    ObjectNode adjustment = object.putObject("adjustment");
    adjustment.put("quantity", after.stock() - before.stock());
    adjustment.put("set", set);
    adjustment.put("reason", reason);
    adjustment.put("previous_stock", before.stock());
    adjustment.put("stock", after.stock());
    events.append(
        connection,
        new EventLog.Subject(
            after.merchantId(), after.environment(), "product", after.id(), after.id()),
        TYPE,
        object);
  }
}
