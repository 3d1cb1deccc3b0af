package ph.payments.payments.refunds.application;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.payments.payments.domain.Failure;
import ph.payments.payments.payments.domain.Payment;
import ph.payments.payments.payments.persistence.JdbcPayments;
import ph.payments.payments.refunds.domain.Refund;
import ph.payments.payments.refunds.domain.RefundStatus;
import ph.payments.payments.refunds.persistence.JdbcRefunds;
import ph.payments.payments.refunds.web.RefundJson;
import ph.payments.platform.commands.CommandHandler;
import ph.payments.platform.commands.CommandReplies;
import ph.payments.platform.errors.ErrorCode;

/**
 * {@code refunds.settle_manual} (operator API, issue 19): the provider's operators have decided a
 * live {@code pending_manual} refund (QR Ph), and a platform operator records their answer with
 * their reference. The refund moves exactly as a provider's callback would move it ({@link
 * RefundMoves}: the payment's refunded amount, {@code refund.succeeded} or {@code refund.failed},
 * and so the ledger's debit), once.
 *
 * <p>Refused: a test-mode refund (the test helpers decide those), a refund in any state but {@code
 * pending_manual}, and a settlement that contradicts the one recorded. The same settlement again
 * (same outcome and reference) answers the refund as it is, so an operator can retry safely.
 */
@Singleton
public class SettleManualRefund implements CommandHandler {

  public static final String TYPE = "refunds.settle_manual";

  private final JdbcRefunds refunds;
  private final JdbcPayments payments;
  private final RefundMoves moves;
  private final Clock clock;

  public SettleManualRefund(
      JdbcRefunds refunds, JdbcPayments payments, RefundMoves moves, Clock clock) {
    this.refunds = refunds;
    this.payments = payments;
    this.moves = moves;
    this.clock = clock;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public CommandReply handle(Connection connection, Command command) throws SQLException {
    JsonNode body = command.body();
    String outcome = text(body, "outcome");
    String reference = text(body, "reference");
    Map<String, String> issues = new LinkedHashMap<>();
    if (!"succeeded".equals(outcome) && !"failed".equals(outcome)) {
      issues.put("outcome", "must be succeeded or failed");
    }
    if (reference == null || reference.isBlank() || reference.length() > 200) {
      issues.put("reference", "is required (1 to 200 characters)");
    }
    if (!issues.isEmpty()) {
      return CommandReplies.invalid(command, issues);
    }
    Optional<Refund> found =
        command.resourceId() == null
            ? Optional.empty()
            : refunds.find(connection, command.resourceId());
    if (found.isEmpty()) {
      return CommandReplies.rejected(command, ErrorCode.NOT_FOUND, "No such refund.");
    }
    // Lock order of every refund change: the payment, then the refund.
    Payment payment = payments.lock(connection, found.get().paymentId()).orElseThrow();
    Refund refund = refunds.lock(connection, found.get().id()).orElseThrow();
    if (!"live".equals(refund.environment())) {
      return CommandReplies.rejected(
          command,
          ErrorCode.INVALID_STATE,
          "The refund is a test-mode refund; test-mode refunds are decided with"
              + " POST /v1/test_helpers/refunds/{id}/succeed|fail.");
    }
    if (refund.status() != RefundStatus.PENDING_MANUAL) {
      String[] recorded = recorded(connection, refund.id());
      if (recorded != null && outcome.equals(recorded[0]) && reference.equals(recorded[1])) {
        return CommandReplies.ok(command, 200, view(refund, recorded));
      }
      return CommandReplies.rejected(
          command,
          ErrorCode.INVALID_STATE,
          "The refund is "
              + refund.status().wire()
              + "; only a pending_manual refund can be settled"
              + (recorded == null ? "." : " (it was settled " + recorded[0] + ")."));
    }
    String failureCode = text(body, "failure_code");
    String failureMessage = text(body, "failure_message");
    Refund.Move move =
        moves.apply(
            connection,
            payment,
            refund,
            "succeeded".equals(outcome)
                ? Refund::succeeded
                : (r, now) ->
                    r.failed(
                        new Failure(
                            failureCode == null ? "refund_failed" : failureCode,
                            failureMessage == null
                                ? "The provider's operators could not refund the payment."
                                : failureMessage),
                        now));
    if (!(move instanceof Refund.Moved)) {
      throw new IllegalStateException("pending_manual refund " + refund.id() + " refused " + move);
    }
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE refunds SET manual_outcome = ?, manual_reference = ?, manual_settled_at = ?"
                + " WHERE id = ?")) {
      update.setString(1, outcome);
      update.setString(2, reference);
      update.setTimestamp(3, Timestamp.from(clock.instant()));
      update.setString(4, refund.id());
      update.executeUpdate();
    }
    Refund after = refunds.find(connection, refund.id()).orElseThrow();
    return CommandReplies.ok(command, 200, view(after, new String[] {outcome, reference}));
  }

  /** The refund resource with the settlement beside it (the operator's view only). */
  private static ObjectNode view(Refund refund, String[] recorded) {
    ObjectNode json = RefundJson.of(refund);
    json.put("merchant", refund.merchantId());
    ObjectNode settlement = json.putObject("manual_settlement");
    settlement.put("outcome", recorded[0]);
    settlement.put("reference", recorded[1]);
    return json;
  }

  /** {outcome, reference} of the recorded settlement, or null. */
  private static String[] recorded(Connection connection, String refundId) throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT manual_outcome, manual_reference FROM refunds WHERE id = ?")) {
      select.setString(1, refundId);
      try (ResultSet rs = select.executeQuery()) {
        if (rs.next() && rs.getString(1) != null) {
          return new String[] {rs.getString(1), rs.getString(2)};
        }
        return null;
      }
    }
  }

  private static String text(JsonNode body, String field) {
    JsonNode value = body == null ? null : body.get(field);
    return value == null || !value.isTextual() ? null : value.asText();
  }
}
