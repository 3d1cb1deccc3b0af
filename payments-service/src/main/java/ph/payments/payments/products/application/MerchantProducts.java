package ph.payments.payments.products.application;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import ph.payments.payments.products.domain.Product;
import ph.payments.payments.products.persistence.JdbcProducts;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.ids.IdType;

/**
 * Finds a product for the merchant and environment of the caller's key: a malformed, unknown or
 * another merchant's id is 404 {@code not_found}; the same merchant's product in the other
 * environment is 401 {@code unauthenticated} (SPEC part 5), as for payments.
 */
@Singleton
public class MerchantProducts {

  private final JdbcProducts products;

  public MerchantProducts(JdbcProducts products) {
    this.products = products;
  }

  /**
   * @param lock true to lock the product's row for the rest of the transaction
   * @throws ApiException 404 or 401 as above
   */
  public Product require(
      Connection connection, String id, String merchantId, String environment, boolean lock)
      throws SQLException {
    if (!IdType.PRODUCT.matches(id)) {
      throw ApiException.notFound("product");
    }
    Optional<Product> found = lock ? products.lock(connection, id) : products.find(connection, id);
    if (found.isEmpty() || !found.get().merchantId().equals(merchantId)) {
      throw ApiException.notFound("product");
    }
    if (!found.get().environment().equals(environment)) {
      throw new ApiException(
          ErrorCode.UNAUTHENTICATED,
          "This product belongs to the other environment; use a key of that environment.");
    }
    return found.get();
  }
}
