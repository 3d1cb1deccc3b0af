package ph.payments.payments.staticqrs.application;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import ph.payments.payments.staticqrs.domain.StaticQr;
import ph.payments.payments.staticqrs.persistence.JdbcStaticQrs;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.ids.IdType;

/**
 * Finds a static QR for the merchant and environment of the caller's key: a malformed, unknown or
 * another merchant's id is 404 {@code not_found}; the same merchant's QR in the other environment
 * is 401 {@code unauthenticated} (SPEC part 5).
 */
@Singleton
public class MerchantStaticQrs {

  private final JdbcStaticQrs qrs;

  public MerchantStaticQrs(JdbcStaticQrs qrs) {
    this.qrs = qrs;
  }

  /**
   * @param lock true to lock the QR's row for the rest of the transaction
   * @throws ApiException 404 or 401 as above
   */
  public StaticQr require(
      Connection connection, String id, String merchantId, String environment, boolean lock)
      throws SQLException {
    if (!IdType.STATIC_QR.matches(id)) {
      throw ApiException.notFound("static QR");
    }
    Optional<StaticQr> found = lock ? qrs.lock(connection, id) : qrs.find(connection, id);
    if (found.isEmpty() || !found.get().merchantId().equals(merchantId)) {
      throw ApiException.notFound("static QR");
    }
    if (!found.get().environment().equals(environment)) {
      throw new ApiException(
          ErrorCode.UNAUTHENTICATED,
          "This static QR belongs to the other environment; use a key of that environment.");
    }
    return found.get();
  }
}
