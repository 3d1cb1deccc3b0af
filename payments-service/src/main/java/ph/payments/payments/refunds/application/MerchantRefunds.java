package ph.payments.payments.refunds.application;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import ph.payments.payments.refunds.domain.Refund;
import ph.payments.payments.refunds.persistence.JdbcRefunds;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.ids.IdType;

/**
 * Finds a refund for the merchant and environment of the caller's key: another merchant's or an
 * unknown id is 404 {@code not_found}; the same merchant's refund in the other environment is 401
 * {@code unauthenticated} (SPEC part 5), as for payments.
 */
@Singleton
public class MerchantRefunds {

  private final JdbcRefunds refunds;

  public MerchantRefunds(JdbcRefunds refunds) {
    this.refunds = refunds;
  }

  /**
   * @throws ApiException 404 or 401 as above
   */
  public Refund require(Connection connection, String id, String merchantId, String environment)
      throws SQLException {
    if (!IdType.REFUND.matches(id)) {
      throw ApiException.notFound("refund");
    }
    Optional<Refund> found = refunds.find(connection, id);
    if (found.isEmpty() || !found.get().merchantId().equals(merchantId)) {
      throw ApiException.notFound("refund");
    }
    if (!found.get().environment().equals(environment)) {
      throw new ApiException(
          ErrorCode.UNAUTHENTICATED,
          "This refund belongs to the other environment; use a key of that environment.");
    }
    return found.get();
  }
}
