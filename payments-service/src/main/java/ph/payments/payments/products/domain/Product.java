package ph.payments.payments.products.domain;

import java.math.BigDecimal;
import java.time.Instant;

/**
 * A product of a merchant's catalog (SPEC part 2 "Product"). {@code price} null is an open amount;
 * {@code metadata} is held as JSON text so the domain stays plain Java.
 *
 * <p>Derived, never stored: {@link #inStock()} and {@link #lowStock()}.
 */
public record Product(
    String id,
    String merchantId,
    String environment,
    String name,
    String description,
    BigDecimal price,
    String currency,
    String sku,
    String barcode,
    String imageUrl,
    boolean trackInventory,
    int stock,
    Integer lowStockThreshold,
    boolean archived,
    String category,
    String metadataJson,
    Instant createdAt,
    Instant updatedAt) {

  public Product {
    if (stock < 0) {
      throw new IllegalArgumentException("stock is never below 0");
    }
  }

  /** True when inventory is not tracked, or stock is above 0. */
  public boolean inStock() {
    return !trackInventory || stock > 0;
  }

  /** True when inventory is tracked, a threshold is set and stock is at or below it. */
  public boolean lowStock() {
    return trackInventory && lowStockThreshold != null && stock <= lowStockThreshold;
  }

  /** This product with {@code stock}, changed at {@code at}. */
  public Product withStock(int newStock, Instant at) {
    return new Product(
        id,
        merchantId,
        environment,
        name,
        description,
        price,
        currency,
        sku,
        barcode,
        imageUrl,
        trackInventory,
        newStock,
        lowStockThreshold,
        archived,
        category,
        metadataJson,
        createdAt,
        at);
  }
}
