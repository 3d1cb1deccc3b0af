package ph.payments.payments.invoices.application;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import ph.payments.payments.invoices.domain.Invoice;
import ph.payments.payments.invoices.domain.InvoiceKind;
import ph.payments.payments.invoices.persistence.JdbcInvoices;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.ids.IdType;

/**
 * Finds an invoice for the merchant and environment of the caller's key: a malformed, unknown or
 * another merchant's id is 404 {@code not_found}; the same merchant's invoice in the other
 * environment is 401 {@code unauthenticated} (SPEC part 5), as for links.
 */
@Singleton
public class MerchantInvoices {

  private final JdbcInvoices invoices;

  public MerchantInvoices(JdbcInvoices invoices) {
    this.invoices = invoices;
  }

  /**
   * @param lock true to lock the invoice's row for the rest of the transaction
   * @throws ApiException 404 or 401 as above
   */
  public Invoice require(
      Connection connection, String id, String merchantId, String environment, boolean lock)
      throws SQLException {
    if (!IdType.INVOICE.matches(id)) {
      throw ApiException.notFound("invoice");
    }
    Optional<Invoice> found = lock ? invoices.lock(connection, id) : invoices.find(connection, id);
    if (found.isEmpty() || !found.get().merchantId().equals(merchantId)) {
      throw ApiException.notFound("invoice");
    }
    if (!found.get().environment().equals(environment)) {
      throw new ApiException(
          ErrorCode.UNAUTHENTICATED,
          "This invoice belongs to the other environment; use a key of that environment.");
    }
    return found.get();
  }

  /**
   * {@link #require}, locked, for a merchant's change (update, send, void): an activation fee is
   * the operator's to change, 400 {@code invalid_state}.
   */
  public Invoice requireChangeable(
      Connection connection, String id, String merchantId, String environment) throws SQLException {
    Invoice invoice = require(connection, id, merchantId, environment, true);
    if (invoice.kind() == InvoiceKind.ACTIVATION_FEE) {
      throw new ApiException(
          ErrorCode.INVALID_STATE,
          "This is an activation fee billed by the platform: it is paid, not changed.");
    }
    return invoice;
  }
}
