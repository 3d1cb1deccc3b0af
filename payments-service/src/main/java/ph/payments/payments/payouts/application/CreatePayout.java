package ph.payments.payments.payouts.application;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.inject.Singleton;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.payments.payouts.domain.Destination;
import ph.payments.payments.payouts.domain.Payout;
import ph.payments.payments.payouts.domain.PayoutFees;
import ph.payments.payments.payouts.domain.PayoutStatus;
import ph.payments.payments.payouts.persistence.JdbcHoldRequests;
import ph.payments.payments.payouts.persistence.JdbcPayoutBanks;
import ph.payments.payments.payouts.web.PayoutJson;
import ph.payments.payments.providers.PayoutAdapter;
import ph.payments.payments.providers.PayoutRouter;
import ph.payments.platform.commands.CommandHandler;
import ph.payments.platform.commands.CommandReplies;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.money.InvalidAmountException;
import ph.payments.platform.money.Money;
import ph.payments.platform.tx.Transactions;

/**
 * {@code payouts.create}: pays out from the merchant's balance (SPEC parts 3 and 4).
 *
 * <ol>
 *   <li>Everything that can refuse the payout is checked first: a rail for the method and currency
 *       ({@code no_route}), the rail's limit, an amount above the fee, the destination and its bank
 *       code (an active code of the registry).
 *   <li>The ledger holds the amount ({@link LedgerHolds}, idempotent on the payout id), asked in
 *       {@link #prepare} before the command's transaction opens, and recorded in {@code
 *       payout_hold_requests}. Not enough balance: 400 {@code insufficient_balance} and nothing is
 *       created. No answer: the command fails and is retried later; a payout never exists without
 *       its hold. A hold whose payout never appears is released by {@link ReleaseOrphanedHolds},
 *       and a command that comes after that release is refused ({@code invalid_state}).
 *   <li>The rail takes the payout and its first answer decides the state: {@code succeeded} or
 *       {@code failed} at once (with {@code payout.succeeded} / {@code payout.failed}), {@code
 *       processing}, or {@code pending} until the batch rail's cut-off.
 * </ol>
 */
@Singleton
public class CreatePayout implements CommandHandler {

  private static final Logger log = LoggerFactory.getLogger(CreatePayout.class);

  public static final String TYPE = "payouts.create";

  private final PayoutRouter rails;
  private final JdbcPayoutBanks banks;
  private final LedgerHolds ledger;
  private final PayoutMoves moves;
  private final JdbcHoldRequests requests;
  private final Transactions transactions;
  private final Clock clock;

  public CreatePayout(
      PayoutRouter rails,
      JdbcPayoutBanks banks,
      LedgerHolds ledger,
      PayoutMoves moves,
      JdbcHoldRequests requests,
      Transactions transactions,
      Clock clock) {
    this.rails = rails;
    this.banks = banks;
    this.ledger = ledger;
    this.moves = moves;
    this.requests = requests;
    this.transactions = transactions;
    this.clock = clock;
  }

  @Override
  public String type() {
    return TYPE;
  }

  /** A payout that passed every check, and what it needs. */
  private record Checked(
      Money amount, PayoutAdapter rail, Money fee, Destination destination, String method) {}

  /**
   * Everything that can refuse the payout before its hold: the same checks in {@link #prepare} (so
   * no hold is asked for a payout that will be refused) and in {@link #handle}.
   *
   * @return the refusal, or null when {@code checked[0]} holds the checked payout
   */
  private CommandReply check(Connection connection, Command command, Checked[] checked)
      throws SQLException {
    JsonNode body = command.body();
    String method = body.path("method").asText("");
    String currency = body.hasNonNull("currency") ? body.get("currency").asText() : "PHP";
    Money amount;
    try {
      amount = Money.of(body.path("amount").decimalValue(), currency);
    } catch (InvalidAmountException e) {
      return CommandReplies.invalid(command, Map.of("amount", e.getMessage()));
    }
    if (!amount.isPositive()) {
      return CommandReplies.invalid(command, Map.of("amount", "must be at least 0.01"));
    }
    Optional<PayoutAdapter> rail = rails.route(command.environment(), method, currency);
    if (rail.isEmpty()) {
      return CommandReplies.rejected(
          command,
          ErrorCode.NO_ROUTE,
          "No payout provider is available for method " + method + " in " + currency + ".");
    }
    BigDecimal max = rail.get().maxAmount();
    if (max != null && amount.amount().compareTo(max) > 0) {
      return CommandReplies.invalid(
          command,
          Map.of(
              "amount",
              "must be at most "
                  + max.toPlainString()
                  + " for method "
                  + method
                  + " (the rail's limit per transfer)"));
    }
    Money fee = PayoutFees.feeFor(method, currency);
    if (amount.compareTo(fee) <= 0) {
      return CommandReplies.invalid(
          command,
          Map.of(
              "amount",
              "must be more than the fee of "
                  + fee.amount().toPlainString()
                  + " for method "
                  + method
                  + ", which is part of the amount"));
    }
    Destination.Read read = Destination.read(method, body.get("destination"));
    if (read instanceof Destination.Invalid invalid) {
      return CommandReplies.invalid(command, invalid.issues());
    }
    Destination destination = ((Destination.Valid) read).destination();
    if (destination.bankCode() != null) {
      Optional<JdbcPayoutBanks.PayoutBank> bank = banks.find(connection, destination.bankCode());
      if (bank.isEmpty() || !bank.get().active()) {
        return CommandReplies.invalid(
            command,
            Map.of(
                "destination." + destination.bankCodeField(),
                bank.isEmpty()
                    ? "must be a bank code of GET /v1/payout-banks"
                    : "names an inactive bank (status 0 in GET /v1/payout-banks)"));
      }
    }
    checked[0] = new Checked(amount, rail.get(), fee, destination, method);
    return null;
  }

  /**
   * Asks the ledger for the hold, outside any transaction (issue 14, item 8): the ask is recorded
   * first ({@code payout_hold_requests}, committed), then the HTTP call, then the answer in a
   * second short transaction. {@link #handle} reads the answer under the row's lock. Skipped when
   * the payout exists or its hold was released (a redelivery, a late retry).
   */
  @Override
  public void prepare(Command command) {
    Checked[] checked = new Checked[1];
    CommandReply refusal = transactions.inTransaction(c -> check(c, command, checked));
    if (refusal != null) {
      return; // handle gives the same answer; nothing to hold
    }
    LedgerHolds.HoldRequest request =
        new LedgerHolds.HoldRequest(
            command.resourceId(), command.merchantId(), command.environment(), checked[0].amount());
    boolean ask =
        transactions.inTransaction(
            c -> requests.asking(c, request, command.commandId(), clock.instant()));
    if (!ask) {
      return;
    }
    String outcome;
    String code = null;
    try {
      LedgerHolds.Outcome hold = ledger.hold(request);
      if (hold instanceof LedgerHolds.Refused refused) {
        outcome = "refused";
        code = refused.code();
      } else if (hold instanceof LedgerHolds.Insufficient) {
        outcome = "insufficient";
      } else if (hold instanceof LedgerHolds.Released) {
        outcome = "released";
      } else {
        outcome = "held";
      }
    } catch (LedgerHolds.Unavailable e) {
      log.warn("hold of payout {}: {}", command.resourceId(), e.getMessage());
      outcome = "unavailable";
    }
    String answer = outcome;
    String refusalCode = code;
    transactions.inTransaction(
        c -> {
          requests.answered(c, command.resourceId(), answer, refusalCode);
          return null;
        });
  }

  @Override
  public CommandReply handle(Connection connection, Command command) throws SQLException {
    JsonNode body = command.body();
    Checked[] checked = new Checked[1];
    CommandReply refusal = check(connection, command, checked);
    if (refusal != null) {
      return refusal;
    }
    Money amount = checked[0].amount();
    Money fee = checked[0].fee();
    Destination destination = checked[0].destination();
    String method = checked[0].method();
    Optional<PayoutAdapter> rail = Optional.of(checked[0].rail());

    // The hold was asked before this transaction (prepare); its row is locked until commit, so the
    // reconciler cannot release it between this check and the payout's insert, and a hold it did
    // release is never used.
    JdbcHoldRequests.HoldRequestRow hold =
        requests
            .lock(connection, command.resourceId())
            .orElseThrow(
                () ->
                    new LedgerHolds.Unavailable(
                        "the hold of payout " + command.resourceId() + " was not asked yet", null));
    if (hold.released()) {
      return CommandReplies.rejected(
          command,
          ErrorCode.INVALID_STATE,
          "The payout could not be created in time and its hold was given back; nothing was paid"
              + " out. Create the payout again.");
    }
    switch (hold.outcome()) {
      case "held" -> {}
      case "insufficient" -> {
        return CommandReplies.rejected(
            command,
            ErrorCode.INSUFFICIENT_BALANCE,
            "The available balance is lower than the payout amount.");
      }
      case "released" -> {
        return CommandReplies.rejected(
            command,
            ErrorCode.INVALID_STATE,
            "The payout's hold was already given back; nothing was paid out. Create the payout"
                + " again.");
      }
      case "refused" -> {
        return CommandReplies.rejected(
            command,
            ErrorCode.fromCode(hold.refusalCode())
                .filter(c -> c == ErrorCode.CONFLICT)
                .orElse(ErrorCode.INTERNAL_ERROR),
            "The ledger refused the payout's hold (" + hold.refusalCode() + ").");
      }
      default ->
          // asking or unavailable: no answer yet; fail the command, the retry asks again.
          throw new LedgerHolds.Unavailable(
              "no answer from the ledger for the hold of payout " + command.resourceId(), null);
    }

    Instant now = clock.instant();
    PayoutAdapter.Sent sent =
        rail.get()
            .send(
                connection,
                new PayoutAdapter.PayoutOrder(
                    command.resourceId(),
                    command.merchantId(),
                    command.environment(),
                    method,
                    amount.minus(fee),
                    body.get("destination"),
                    destination.accountNo(),
                    destination.bankCode()));
    Payout pending =
        new Payout(
            command.resourceId(),
            command.merchantId(),
            command.environment(),
            PayoutStatus.PENDING,
            amount,
            method,
            rail.get().name(),
            sent.providerRef(),
            body.get("destination").deepCopy(),
            body.hasNonNull("description") ? body.get("description").asText() : null,
            body.hasNonNull("metadata") ? (ObjectNode) body.get("metadata").deepCopy() : null,
            fee,
            null,
            null,
            null,
            now,
            now);
    Payout.Move first =
        switch (sent.outcome()) {
          case QUEUED -> new Payout.Moved(pending, null);
          case PROCESSING -> pending.processing(now);
          case PAID -> pending.succeeded(now);
          case FAILED -> pending.failed(sent.failure(), now);
        };
    if (!(first instanceof Payout.Moved moved)) {
      throw new IllegalStateException("a new payout cannot make that move: " + first);
    }
    moves.created(connection, moved.payout(), moved.eventType());
    return CommandReplies.ok(command, 201, PayoutJson.of(moved.payout()));
  }
}
