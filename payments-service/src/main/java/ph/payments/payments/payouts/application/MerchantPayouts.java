package ph.payments.payments.payouts.application;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import ph.payments.payments.payouts.domain.Payout;
import ph.payments.payments.payouts.persistence.JdbcPayouts;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.ids.IdType;

/**
 * Finds a payout for the merchant and environment of the caller's key: another merchant's or an
 * unknown id is 404 {@code not_found}; the same merchant's payout in the other environment is 401
 * {@code unauthenticated} (SPEC part 5), as for payments.
 */
@Singleton
public class MerchantPayouts {

  private final JdbcPayouts payouts;

  public MerchantPayouts(JdbcPayouts payouts) {
    this.payouts = payouts;
  }

  /**
   * @throws ApiException 404 or 401 as above
   */
  public Payout require(Connection connection, String id, String merchantId, String environment)
      throws SQLException {
    if (!IdType.PAYOUT.matches(id)) {
      throw ApiException.notFound("payout");
    }
    Optional<Payout> found = payouts.find(connection, id);
    if (found.isEmpty() || !found.get().merchantId().equals(merchantId)) {
      throw ApiException.notFound("payout");
    }
    if (!found.get().environment().equals(environment)) {
      throw new ApiException(
          ErrorCode.UNAUTHENTICATED,
          "This payout belongs to the other environment; use a key of that environment.");
    }
    return found.get();
  }
}
