package ph.payments.payments.providers;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.payments.payments.application.PaymentMoves;
import ph.payments.payments.payments.domain.Failure;
import ph.payments.payments.payments.domain.Payment;
import ph.payments.payments.payments.persistence.JdbcPayments;
import ph.payments.payments.payouts.application.PayoutReports;
import ph.payments.payments.refunds.application.RefundReports;
import ph.payments.platform.json.Json;
import ph.payments.platform.tx.Transactions;

/**
 * The one path by which a provider's report changes a payment, a refund or a payout, for real
 * providers (over HTTP) and the sandbox alike: verify the signature, apply each callback at most
 * once, and only as a legal move of the resource's state machine. {@code order.*} callbacks are
 * about payments, {@code refund.*} about refunds and {@code payout.*} about payouts.
 */
@Singleton
public class ProviderCallbacks {

  private static final Logger log = LoggerFactory.getLogger(ProviderCallbacks.class);

  /** What became of a callback. */
  public enum Outcome {
    /** The payment, refund or payout moved. */
    APPLIED,
    /** This callback id was applied before; nothing changed. */
    DUPLICATE,
    /** Recorded but not applied: unknown order, or a move the state machine forbids. */
    IGNORED
  }

  /** The signature did not verify; nothing was recorded. */
  public static final class InvalidSignature extends RuntimeException {
    InvalidSignature() {
      super("invalid provider signature", null, false, false);
    }
  }

  private final JdbcPayments payments;
  private final PaymentMoves moves;
  private final RefundReports refunds;
  private final PayoutReports payouts;
  private final Clock clock;

  public ProviderCallbacks(
      JdbcPayments payments,
      PaymentMoves moves,
      RefundReports refunds,
      PayoutReports payouts,
      Clock clock) {
    this.payments = payments;
    this.moves = moves;
    this.refunds = refunds;
    this.payouts = payouts;
    this.clock = clock;
  }

  /**
   * Handles one signed callback in the caller's transaction.
   *
   * @throws InvalidSignature when {@code signature} does not match {@code body}
   */
  public Outcome receive(
      Connection connection, CallbackSource provider, byte[] body, String signature)
      throws SQLException {
    Transactions.requireTransaction(connection);
    if (!provider.verify(body, signature)) {
      throw new InvalidSignature();
    }
    ProviderCallback callback = Json.fromBytes(body, ProviderCallback.class);
    if (!firstDelivery(connection, provider.name(), callback.id())) {
      return Outcome.DUPLICATE;
    }
    String type = callback.type() == null ? "" : callback.type();
    if (type.startsWith("refund.")) {
      return refunds.apply(connection, provider.name(), callback)
          ? Outcome.APPLIED
          : Outcome.IGNORED;
    }
    if (type.startsWith("payout.")) {
      return payouts.apply(connection, provider.name(), callback)
          ? Outcome.APPLIED
          : Outcome.IGNORED;
    }
    Optional<Payment> found =
        payments.lockByProviderRef(connection, provider.name(), callback.providerRef());
    if (found.isEmpty()) {
      log.warn(
          "{} callback {} for unknown order {}",
          provider.name(),
          callback.id(),
          callback.providerRef());
      return Outcome.IGNORED;
    }
    Payment.Move outcome =
        switch (callback.type()) {
          case ProviderCallback.PAID -> moves.apply(connection, found.get(), Payment::processing);
          case ProviderCallback.CAPTURED ->
              moves.apply(connection, found.get(), Payment::succeeded);
          case ProviderCallback.DECLINED ->
              moves.apply(
                  connection,
                  found.get(),
                  (payment, now) ->
                      payment.failed(
                          new Failure(callback.failureCode(), callback.failureMessage()), now));
          default -> null;
        };
    if (outcome instanceof Payment.Moved) {
      return Outcome.APPLIED;
    }
    // A late or contradictory report (e.g. paid after expiry) is kept out of the payment; the
    // operator sees it here. It is not retried: its id is recorded.
    log.warn(
        "{} callback {} ({}) not applied to {}: {}",
        provider.name(),
        callback.id(),
        callback.type(),
        found.get().id(),
        outcome);
    return Outcome.IGNORED;
  }

  private boolean firstDelivery(Connection connection, String provider, String callbackId)
      throws SQLException {
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO provider_callbacks (provider, callback_id, received_at) VALUES (?, ?, ?)"
                + " ON CONFLICT DO NOTHING")) {
      insert.setString(1, provider);
      insert.setString(2, callbackId);
      insert.setTimestamp(3, Timestamp.from(clock.instant()));
      return insert.executeUpdate() == 1;
    }
  }
}
