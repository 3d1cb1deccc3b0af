package ph.payments.payments.refunds.application;

import com.fasterxml.jackson.databind.JsonNode;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.payments.invoices.application.Invoices;
import ph.payments.payments.payments.application.MerchantPayments;
import ph.payments.payments.payments.domain.Payment;
import ph.payments.payments.payments.domain.PaymentStatus;
import ph.payments.payments.providers.ProviderAdapter;
import ph.payments.payments.providers.ProviderRouter;
import ph.payments.payments.refunds.domain.Refund;
import ph.payments.payments.refunds.persistence.JdbcRefunds;
import ph.payments.payments.refunds.web.RefundJson;
import ph.payments.platform.commands.CommandHandler;
import ph.payments.platform.commands.CommandReplies;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.ids.RefundId;
import ph.payments.platform.money.InvalidAmountException;
import ph.payments.platform.money.Money;

/**
 * {@code refunds.create}: refunds part or all of a succeeded payment (SPEC parts 3 and 4).
 *
 * <p>Under the payment's row lock, what remains refundable is the amount minus every refund of the
 * payment that has not failed; a refund larger than that is refused ({@code invalid_request} on
 * {@code amount}), and an omitted amount takes all of it. Concurrent refunds of one payment queue
 * on that lock, so together they can never pass the amount. The refund then goes to the payment's
 * provider, and its answer decides the first state: {@code refund.created} is written with the
 * refund as handed over ({@code processing}, {@code pending_manual}, or {@code pending} when the
 * provider answered at once, in which case {@code refund.succeeded} or {@code refund.failed}
 * follows in the same transaction).
 */
@Singleton
public class CreateRefund implements CommandHandler {

  public static final String TYPE = "refunds.create";

  private final MerchantPayments merchantPayments;
  private final JdbcRefunds refunds;
  private final RefundMoves moves;
  private final ProviderRouter providers;
  private final Invoices invoices;
  private final Clock clock;

  public CreateRefund(
      MerchantPayments merchantPayments,
      JdbcRefunds refunds,
      RefundMoves moves,
      ProviderRouter providers,
      Invoices invoices,
      Clock clock) {
    this.merchantPayments = merchantPayments;
    this.refunds = refunds;
    this.moves = moves;
    this.providers = providers;
    this.invoices = invoices;
    this.clock = clock;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public CommandReply handle(Connection connection, Command command) throws SQLException {
    JsonNode body = command.body();
    Payment payment;
    try {
      payment =
          merchantPayments.require(
              connection,
              body.path("payment").asText(null),
              command.merchantId(),
              command.environment(),
              true);
    } catch (ApiException e) {
      return CommandReplies.rejected(command, e.code(), e.getMessage());
    }
    if (payment.status() != PaymentStatus.SUCCEEDED) {
      return CommandReplies.rejected(
          command,
          ErrorCode.INVALID_STATE,
          "The payment is "
              + payment.status().wire()
              + "; only a succeeded payment can be refunded.");
    }
    if (invoices.paysActivationFee(connection, payment.id())) {
      return CommandReplies.rejected(
          command,
          ErrorCode.INVALID_STATE,
          "This payment paid an activation fee to the platform; only the platform refunds it.");
    }
    String currency = payment.currency();
    Money refundable =
        payment.amount().minus(Money.of(refunds.reservedFor(connection, payment.id()), currency));
    Money amount;
    if (body.hasNonNull("amount")) {
      try {
        amount = Money.of(body.get("amount").decimalValue(), currency);
      } catch (InvalidAmountException e) {
        return CommandReplies.invalid(command, Map.of("amount", "must be a multiple of 0.01"));
      }
      if (!amount.isPositive()) {
        return CommandReplies.invalid(command, Map.of("amount", "must be at least 0.01"));
      }
      if (amount.compareTo(refundable) > 0) {
        return CommandReplies.invalid(
            command,
            Map.of(
                "amount",
                "must be at most "
                    + refundable.amount().toPlainString()
                    + ", what remains refundable of the payment"));
      }
    } else {
      if (!refundable.isPositive()) {
        return CommandReplies.invalid(
            command,
            Map.of(
                "amount",
                "nothing remains to be refunded: refunds that have not failed hold the whole"
                    + " amount of the payment"));
      }
      amount = refundable;
    }
    Optional<Refund> refund =
        handOver(
            connection, command.resourceId(), payment, amount, body.path("reason").asText(null));
    if (refund.isEmpty()) {
      // A live payment whose provider live mode no longer uses (LIVE_CONNECTORS changed): the
      // refund must not go through a provider that moves no money.
      return CommandReplies.rejected(
          command,
          ErrorCode.NO_ROUTE,
          "The payment's provider " + payment.provider() + " is not available for refunds.");
    }
    return CommandReplies.ok(command, 201, RefundJson.of(refund.get()));
  }

  /**
   * Gives back what an invoice did not take of a payment that just succeeded ({@link
   * ph.payments.payments.invoices.application.Invoices.Counted}), in the transaction of that
   * success: a refund of {@code excess} with reason {@code duplicate}, through the payment's
   * provider like any other, announced by its events. Empty when the provider is no longer
   * available to refund through (the excess then stays counted, and the caller says so).
   *
   * @param payment the payment, succeeded in this transaction
   */
  public Optional<Refund> refundExcess(Connection connection, Payment payment, Money excess)
      throws SQLException {
    return handOver(connection, RefundId.generate().value(), payment, excess, "duplicate");
  }

  /**
   * Hands a refund of {@code amount} (already checked against what remains refundable) to the
   * payment's provider and records it with its first state; empty when no provider serves it.
   */
  private Optional<Refund> handOver(
      Connection connection, String refundId, Payment payment, Money amount, String reason)
      throws SQLException {
    Optional<ProviderAdapter> route = providers.byName(payment.environment(), payment.provider());
    if (route.isEmpty()) {
      return Optional.empty();
    }
    ProviderAdapter provider = route.get();
    ProviderAdapter.RefundAccepted accepted =
        provider.refund(
            connection,
            new ProviderAdapter.RefundRequest(
                refundId, payment.id(), payment.providerRef(), payment.environment(), amount));
    Instant now = clock.instant();
    Refund handedOver =
        Refund.handedOver(
            refundId,
            payment.merchantId(),
            payment.environment(),
            payment.id(),
            amount,
            reason,
            provider.name(),
            accepted.providerRef(),
            now);
    Refund refund =
        switch (accepted.outcome()) {
          case PROCESSING -> created(connection, handedOver.processing(now));
          case MANUAL -> created(connection, handedOver.pendingManual(now));
          case SUCCEEDED -> {
            moves.created(connection, handedOver);
            yield moved(moves.apply(connection, payment, handedOver, Refund::succeeded));
          }
          case FAILED -> {
            moves.created(connection, handedOver);
            yield moved(
                moves.apply(
                    connection, payment, handedOver, (r, at) -> r.failed(accepted.failure(), at)));
          }
        };
    return Optional.of(refund);
  }

  private Refund created(Connection connection, Refund.Move move) throws SQLException {
    Refund refund = moved(move);
    moves.created(connection, refund);
    return refund;
  }

  private static Refund moved(Refund.Move move) {
    if (move instanceof Refund.Moved moved) {
      return moved.refund();
    }
    throw new IllegalStateException("a refund being handed over cannot make that move: " + move);
  }
}
