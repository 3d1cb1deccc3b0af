package ph.payments.payments.links.application;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import ph.payments.payments.links.domain.PaymentLink;
import ph.payments.payments.links.persistence.JdbcPaymentLinks;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.ids.IdType;

/**
 * Finds a payment link for the merchant and environment of the caller's key: a malformed, unknown
 * or another merchant's id is 404 {@code not_found}; the same merchant's link in the other
 * environment is 401 {@code unauthenticated} (SPEC part 5), as for payments and products.
 */
@Singleton
public class MerchantPaymentLinks {

  private final JdbcPaymentLinks links;

  public MerchantPaymentLinks(JdbcPaymentLinks links) {
    this.links = links;
  }

  /**
   * @param lock true to lock the link's row for the rest of the transaction
   * @throws ApiException 404 or 401 as above
   */
  public PaymentLink require(
      Connection connection, String id, String merchantId, String environment, boolean lock)
      throws SQLException {
    if (!IdType.PAYMENT_LINK.matches(id)) {
      throw ApiException.notFound("payment link");
    }
    Optional<PaymentLink> found = lock ? links.lock(connection, id) : links.find(connection, id);
    if (found.isEmpty() || !found.get().merchantId().equals(merchantId)) {
      throw ApiException.notFound("payment link");
    }
    if (!found.get().environment().equals(environment)) {
      throw new ApiException(
          ErrorCode.UNAUTHENTICATED,
          "This payment link belongs to the other environment; use a key of that environment.");
    }
    return found.get();
  }
}
