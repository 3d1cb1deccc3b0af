package ph.payments.payments.payments.application;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import ph.payments.payments.payments.domain.Payment;
import ph.payments.payments.payments.persistence.JdbcPayments;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.ids.IdType;

/**
 * Finds a payment for the merchant and environment of the caller's key, telling the two ways of not
 * finding it apart: another merchant's or an unknown id is 404 {@code not_found}; the same
 * merchant's payment in the other environment is 401 {@code unauthenticated} (SPEC part 5).
 */
@Singleton
public class MerchantPayments {

  private final JdbcPayments payments;

  public MerchantPayments(JdbcPayments payments) {
    this.payments = payments;
  }

  /**
   * @param lock whether to lock the payment for the rest of the transaction
   * @throws ApiException 404 or 401 as above
   */
  public Payment require(
      Connection connection, String id, String merchantId, String environment, boolean lock)
      throws SQLException {
    if (!IdType.PAYMENT.matches(id)) {
      throw ApiException.notFound("payment");
    }
    Optional<Payment> found = lock ? payments.lock(connection, id) : payments.find(connection, id);
    if (found.isEmpty() || !found.get().merchantId().equals(merchantId)) {
      throw ApiException.notFound("payment");
    }
    if (!found.get().environment().equals(environment)) {
      throw new ApiException(
          ErrorCode.UNAUTHENTICATED,
          "This payment belongs to the other environment; use a key of that environment.");
    }
    return found.get();
  }
}
