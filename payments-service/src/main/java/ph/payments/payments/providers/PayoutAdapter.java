package ph.payments.payments.providers;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Set;
import ph.payments.payments.payments.domain.Failure;
import ph.payments.platform.money.Money;

/**
 * One payout rail, seen from our side: it takes a payout order (after the ledger held its amount)
 * and answers at once, or later through {@link ProviderCallbacks} with callbacks signed with the
 * secret the adapter verifies. The sandbox rails implement it completely; a live connector
 * implements the same interface against a real disbursement API.
 */
public interface PayoutAdapter extends CallbackSource {

  /** Payout methods this rail serves, e.g. {@code bank_transfer}. */
  Set<String> methods();

  /** Currencies it pays out. */
  Set<String> currencies();

  /** The largest payout the rail takes, or null. */
  default BigDecimal maxAmount() {
    return null;
  }

  /**
   * What the rail is asked to pay.
   *
   * @param amount what reaches the recipient: the payout's amount minus its fee
   * @param destination as the merchant gave it, validated for the method
   * @param accountNo the destination's account number
   * @param bankCode the destination's registry code, null for wallets
   */
  record PayoutOrder(
      String payoutId,
      String merchantId,
      String environment,
      String method,
      Money amount,
      JsonNode destination,
      String accountNo,
      String bankCode) {}

  /** The rail's first answer. */
  enum PayoutOutcome {
    /** Paid at once; final. */
    PAID,
    /** Refused at once; final, with a failure. */
    FAILED,
    /** Sent; the receiving institution has not confirmed yet. */
    PROCESSING,
    /** Queued for the rail's next batch (cut-off). */
    QUEUED
  }

  /**
   * @param providerRef the rail's reference; its callbacks name it
   * @param failure set for {@link PayoutOutcome#FAILED}
   */
  record Sent(String providerRef, PayoutOutcome outcome, Failure failure) {}

  /** Sends the payout; runs in the transaction that creates it. */
  Sent send(Connection connection, PayoutOrder order) throws SQLException;
}
