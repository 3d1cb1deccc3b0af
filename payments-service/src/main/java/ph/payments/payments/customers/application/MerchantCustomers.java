package ph.payments.payments.customers.application;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import ph.payments.payments.customers.domain.Customer;
import ph.payments.payments.customers.persistence.JdbcCustomers;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.ids.IdType;

/**
 * Finds a customer for the merchant and environment of the caller's key, as {@code
 * MerchantPayments} finds payments: another merchant's, an unknown or a malformed id is 404 {@code
 * not_found}; the same merchant's customer in the other environment is 401 {@code unauthenticated}
 * (SPEC part 5).
 */
@Singleton
public class MerchantCustomers {

  private final JdbcCustomers customers;

  public MerchantCustomers(JdbcCustomers customers) {
    this.customers = customers;
  }

  /**
   * @param lock whether to lock the customer for the rest of the transaction
   * @throws ApiException 404 or 401 as above
   */
  public Customer require(
      Connection connection, String id, String merchantId, String environment, boolean lock)
      throws SQLException {
    if (!IdType.CUSTOMER.matches(id)) {
      throw ApiException.notFound("customer");
    }
    Optional<Customer> found =
        lock ? customers.lock(connection, id) : customers.find(connection, id);
    if (found.isEmpty() || !found.get().merchantId().equals(merchantId)) {
      throw ApiException.notFound("customer");
    }
    if (!found.get().environment().equals(environment)) {
      throw new ApiException(
          ErrorCode.UNAUTHENTICATED,
          "This customer belongs to the other environment; use a key of that environment.");
    }
    return found.get();
  }

  /**
   * The customer a payment names in {@code customer_id}: only one of the same merchant and
   * environment counts (no 401 hint here: a payment in one environment never links the other's).
   */
  public Optional<Customer> forPayment(
      Connection connection, String id, String merchantId, String environment) throws SQLException {
    if (!IdType.CUSTOMER.matches(id)) {
      return Optional.empty();
    }
    return customers
        .find(connection, id)
        .filter(c -> c.merchantId().equals(merchantId) && c.environment().equals(environment));
  }
}
