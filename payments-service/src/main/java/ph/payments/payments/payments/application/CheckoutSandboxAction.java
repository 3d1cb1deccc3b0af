package ph.payments.payments.payments.application;

import com.fasterxml.jackson.databind.JsonNode;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.Set;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.contracts.commands.CommandTypes;
import ph.payments.payments.payments.domain.Payment;
import ph.payments.payments.providers.sandbox.SandboxProvider.Action;
import ph.payments.payments.providers.sandbox.SandboxProvider.Decline;
import ph.payments.platform.commands.CommandHandler;
import ph.payments.platform.commands.CommandReplies;
import ph.payments.platform.errors.ErrorCode;

/**
 * {@code checkout.sandbox_action}: what the customer did on the hosted checkout page in test mode
 * (docs/hosted-pages.md), told to the sandbox provider, whose signed callbacks then move the
 * payment exactly as the test helpers' do ({@link PaymentTestHelpers.Helper#drive}). The command's
 * merchant and environment are the payment's own (the gateway takes them from the public checkout
 * read); a live payment is 404 {@code not_found}, as for the test helpers, so no button can
 * complete one.
 *
 * <p>Body {@code {"action": …, "scenario": …, "card_last4": …}}; which actions a payment takes
 * depends on its method:
 *
 * <ul>
 *   <li>{@code pay}: the customer paid and the funds were captured ({@code rail1_qr}, {@code
 *       ewallet1_qr}, {@code bank_transfer});
 *   <li>{@code approve}: the customer approved in the sandbox wallet ({@code ewallet1}, {@code
 *       ewallet1_qr});
 *   <li>{@code decline}: the provider declined (all but {@code card});
 *   <li>{@code card} with {@code scenario} {@code succeeds}, {@code card_declined}, {@code
 *       insufficient_funds} or {@code challenge} (a 3-D Secure challenge the order then waits in),
 *       for a new card order; {@code card_last4} only words the decline;
 *   <li>{@code 3ds_complete} / {@code 3ds_fail}: the cardholder passed or failed the challenge.
 * </ul>
 *
 * An action the payment's method does not take is 400 {@code invalid_request}; one its state does
 * not allow is 400 {@code invalid_state}. The reply is the payment afterwards.
 */
@Singleton
public class CheckoutSandboxAction implements CommandHandler {

  static final Set<String> QR = Set.of("rail1_qr", "ewallet1_qr");
  static final Set<String> WALLETS = Set.of("ewallet1", "ewallet1_qr");
  static final Set<String> SCENARIOS =
      Set.of("succeeds", "card_declined", "insufficient_funds", "challenge");

  private final PaymentTestHelpers.Helper helper;

  CheckoutSandboxAction(PaymentTestHelpers.Helper helper) {
    this.helper = helper;
  }

  @Override
  public String type() {
    return CommandTypes.CHECKOUT_SANDBOX_ACTION;
  }

  @Override
  public CommandReply handle(Connection connection, Command command) throws SQLException {
    JsonNode body = command.body();
    String action = body == null ? "" : body.path("action").asText("");
    String scenario = body == null ? "" : body.path("scenario").asText("");
    String last4 = body == null ? "" : body.path("card_last4").asText("");
    String card = last4.matches("[0-9]{4}") ? "The card ending " + last4 : "Your card";
    return switch (action) {
      case "pay" ->
          drive(connection, command, Action.CAPTURE, null, forMethods(command, action, "pay"));
      case "approve" ->
          drive(connection, command, Action.CAPTURE, null, forMethods(command, action, "wallet"));
      case "decline" ->
          drive(
              connection,
              command,
              Action.DECLINE,
              null,
              (payment, order) ->
                  payment.method().equals("card")
                      ? notFor(command, action, payment)
                      : WALLETS.contains(payment.method())
                          ? null
                          : forMethods(command, action, "pay").refuse(payment, order));
      case "card" -> card(connection, command, scenario, card);
      case "3ds_complete" -> drive(connection, command, Action.CAPTURE, null, challenged(command));
      case "3ds_fail" ->
          drive(
              connection,
              command,
              Action.DECLINE,
              new Decline(
                  "authentication_failed",
                  "3-D Secure authentication failed: "
                      + card.toLowerCase().charAt(0)
                      + card.substring(1)
                      + " was not charged."),
              challenged(command));
      default ->
          CommandReplies.invalid(
              command,
              Map.of(
                  "action", "must be one of pay, approve, decline, card, 3ds_complete, 3ds_fail"));
    };
  }

  private CommandReply card(Connection connection, Command command, String scenario, String card)
      throws SQLException {
    if (!SCENARIOS.contains(scenario)) {
      return CommandReplies.invalid(
          command,
          Map.of(
              "scenario", "must be one of succeeds, card_declined, insufficient_funds, challenge"));
    }
    PaymentTestHelpers.Helper.Check newCardOrder =
        (payment, order) -> {
          if (!payment.method().equals("card")) {
            return notFor(command, "card", payment);
          }
          return "created".equals(order)
              ? null
              : CommandReplies.rejected(
                  command, ErrorCode.INVALID_STATE, "The card payment is already under way.");
        };
    return switch (scenario) {
      case "succeeds" -> drive(connection, command, Action.CAPTURE, null, newCardOrder);
      case "challenge" -> drive(connection, command, Action.CHALLENGE, null, newCardOrder);
      case "card_declined" ->
          drive(
              connection,
              command,
              Action.DECLINE,
              new Decline("card_declined", card + " was declined by its bank."),
              newCardOrder);
      default ->
          drive(
              connection,
              command,
              Action.DECLINE,
              new Decline("insufficient_funds", card + " was declined: insufficient funds."),
              newCardOrder);
    };
  }

  private CommandReply drive(
      Connection connection,
      Command command,
      Action action,
      Decline decline,
      PaymentTestHelpers.Helper.Check check)
      throws SQLException {
    return helper.drive(
        connection,
        command,
        action,
        decline == null
            ? new Decline("payment_declined", "The payment was declined (sandbox).")
            : decline,
        check);
  }

  /**
   * The payment's method takes {@code action}: {@code pay} for QR and bank transfer, or wallets.
   */
  private static PaymentTestHelpers.Helper.Check forMethods(
      Command command, String action, String family) {
    return (payment, order) -> {
      String method = payment.method();
      boolean fits =
          family.equals("wallet")
              ? WALLETS.contains(method)
              : QR.contains(method) || method.equals("bank_transfer");
      return fits ? null : notFor(command, action, payment);
    };
  }

  private static PaymentTestHelpers.Helper.Check challenged(Command command) {
    return (payment, order) ->
        "challenge".equals(order)
            ? null
            : CommandReplies.rejected(
                command, ErrorCode.INVALID_STATE, "No 3-D Secure challenge is waiting.");
  }

  private static CommandReply notFor(Command command, String action, Payment payment) {
    return CommandReplies.invalid(
        command,
        Map.of("action", action + " does not apply to a " + payment.method() + " payment"));
  }
}
