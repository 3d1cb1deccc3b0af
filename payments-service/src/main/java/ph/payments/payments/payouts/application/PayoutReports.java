package ph.payments.payments.payouts.application;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.payments.payments.domain.Failure;
import ph.payments.payments.payouts.domain.Payout;
import ph.payments.payments.payouts.persistence.JdbcPayouts;
import ph.payments.payments.providers.ProviderCallback;

/**
 * Applies a rail's {@code payout.*} callback (already verified and deduplicated by {@code
 * ProviderCallbacks}) to the payout it names, as a legal move only.
 */
@Singleton
public class PayoutReports {

  private static final Logger log = LoggerFactory.getLogger(PayoutReports.class);

  private final JdbcPayouts payouts;
  private final PayoutMoves moves;

  public PayoutReports(JdbcPayouts payouts, PayoutMoves moves) {
    this.payouts = payouts;
    this.moves = moves;
  }

  /**
   * @return true when the payout moved; false when the report names no payout of ours or a move its
   *     state machine forbids (recorded by the caller, logged here, not applied)
   */
  public boolean apply(Connection connection, String provider, ProviderCallback callback)
      throws SQLException {
    Optional<Payout> found =
        payouts.lockByProviderRef(connection, provider, callback.providerRef());
    if (found.isEmpty()) {
      log.warn(
          "{} callback {} for unknown payout {}", provider, callback.id(), callback.providerRef());
      return false;
    }
    Payout.Move outcome =
        switch (callback.type()) {
          case ProviderCallback.PAYOUT_PROCESSING ->
              moves.apply(connection, found.get(), Payout::processing);
          case ProviderCallback.PAYOUT_SUCCEEDED ->
              moves.apply(connection, found.get(), Payout::succeeded);
          case ProviderCallback.PAYOUT_FAILED ->
              moves.apply(
                  connection,
                  found.get(),
                  (p, now) ->
                      p.failed(
                          new Failure(callback.failureCode(), callback.failureMessage()), now));
          default -> null;
        };
    if (outcome instanceof Payout.Moved) {
      return true;
    }
    log.warn(
        "{} callback {} ({}) not applied to {}: {}",
        provider,
        callback.id(),
        callback.type(),
        found.get().id(),
        outcome);
    return false;
  }
}
