package ph.payments.payments.refunds.application;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.payments.payments.domain.Failure;
import ph.payments.payments.payments.domain.Payment;
import ph.payments.payments.payments.persistence.JdbcPayments;
import ph.payments.payments.providers.ProviderCallback;
import ph.payments.payments.refunds.domain.Refund;
import ph.payments.payments.refunds.persistence.JdbcRefunds;

/**
 * Applies a provider's {@code refund.*} callback (already verified and deduplicated by {@code
 * ProviderCallbacks}) to the refund it names, as a legal move only.
 */
@Singleton
public class RefundReports {

  private static final Logger log = LoggerFactory.getLogger(RefundReports.class);

  private final JdbcRefunds refunds;
  private final JdbcPayments payments;
  private final RefundMoves moves;

  public RefundReports(JdbcRefunds refunds, JdbcPayments payments, RefundMoves moves) {
    this.refunds = refunds;
    this.payments = payments;
    this.moves = moves;
  }

  /**
   * @return true when the refund moved; false when the report names no refund of ours or a move its
   *     state machine forbids (recorded by the caller, logged here, not applied)
   */
  public boolean apply(Connection connection, String provider, ProviderCallback callback)
      throws SQLException {
    Optional<Refund> found =
        refunds.findByProviderRef(connection, provider, callback.providerRef());
    if (found.isEmpty()) {
      log.warn(
          "{} callback {} for unknown refund {}", provider, callback.id(), callback.providerRef());
      return false;
    }
    // Lock order of every refund change: the payment, then the refund.
    Payment payment = payments.lock(connection, found.get().paymentId()).orElseThrow();
    Refund refund = refunds.lock(connection, found.get().id()).orElseThrow();
    Refund.Move outcome =
        switch (callback.type()) {
          case ProviderCallback.REFUND_SUCCEEDED ->
              moves.apply(connection, payment, refund, Refund::succeeded);
          case ProviderCallback.REFUND_FAILED ->
              moves.apply(
                  connection,
                  payment,
                  refund,
                  (r, now) ->
                      r.failed(
                          new Failure(callback.failureCode(), callback.failureMessage()), now));
          default -> null;
        };
    if (outcome instanceof Refund.Moved) {
      return true;
    }
    log.warn(
        "{} callback {} ({}) not applied to {}: {}",
        provider,
        callback.id(),
        callback.type(),
        refund.id(),
        outcome);
    return false;
  }
}
