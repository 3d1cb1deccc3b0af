package ph.payments.payments.payments.application;

import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.payments.payments.domain.Payment;
import ph.payments.payments.payments.domain.PaymentStatus;
import ph.payments.payments.payments.persistence.JdbcPayments;
import ph.payments.payments.providers.ProviderCallbacks;
import ph.payments.payments.providers.sandbox.SandboxProvider;
import ph.payments.payments.providers.sandbox.SandboxProviders;
import ph.payments.platform.commands.CommandHandler;
import ph.payments.platform.commands.CommandReplies;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorCode;

/**
 * {@code POST /v1/test_helpers/payments/{id}/process|succeed|fail|expire} (sandbox only): tells the
 * sandbox provider what the customer did; the provider's signed callbacks then move the payment
 * through {@link ProviderCallbacks}, the path a real provider's reports take. {@code expire} closes
 * the checkout window as the expiry job would. Each answers the payment as it is afterwards.
 */
@Factory
public class PaymentTestHelpers {

  public static final String PREFIX = "test_helpers.payments.";

  @Singleton
  CommandHandler process(Helper helper) {
    return helper.handler("process", SandboxProvider.Action.PAY);
  }

  @Singleton
  CommandHandler succeed(Helper helper) {
    return helper.handler("succeed", SandboxProvider.Action.CAPTURE);
  }

  @Singleton
  CommandHandler fail(Helper helper) {
    return helper.handler("fail", SandboxProvider.Action.DECLINE);
  }

  @Singleton
  CommandHandler expire(Helper helper) {
    return helper.handler("expire", null);
  }

  /** The shared logic of the four helpers. */
  @Singleton
  public static class Helper {
    private final MerchantPayments merchantPayments;
    private final SandboxProviders sandbox;
    private final ProviderCallbacks callbacks;
    private final PaymentMoves moves;
    private final JdbcPayments payments;

    Helper(
        MerchantPayments merchantPayments,
        SandboxProviders sandbox,
        ProviderCallbacks callbacks,
        PaymentMoves moves,
        JdbcPayments payments) {
      this.merchantPayments = merchantPayments;
      this.sandbox = sandbox;
      this.callbacks = callbacks;
      this.moves = moves;
      this.payments = payments;
    }

    CommandHandler handler(String name, SandboxProvider.Action action) {
      return CommandHandler.of(
          PREFIX + name, (connection, command) -> run(connection, command, action));
    }

    private CommandReply run(Connection connection, Command command, SandboxProvider.Action action)
        throws SQLException {
      // fail takes the reason the merchant asked for ({code?, message?}; the gateway checked it).
      return drive(
          connection,
          command,
          action,
          SandboxProvider.Decline.requested(command.body(), SandboxProvider.Decline.DEFAULT),
          Check.NONE);
    }

    /** What a sandbox action may require of the payment and its sandbox order before it runs. */
    @FunctionalInterface
    public interface Check {
      Check NONE = (payment, orderStatus) -> null;

      /**
       * @param orderStatus the sandbox order's status ({@link SandboxProvider#orderStatus})
       * @return a rejection, or null to go ahead
       */
      CommandReply refuse(Payment payment, String orderStatus);
    }

    /**
     * Tells the sandbox provider of payment {@code command.resourceId()} (of the command's merchant
     * and environment) that {@code action} happened, and applies the provider's signed callbacks
     * through {@link ProviderCallbacks}, as a real provider's would be; {@code action} null expires
     * the payment instead. Test mode only: a live payment is 404 {@code not_found}.
     *
     * @param decline the reason a {@link SandboxProvider.Action#DECLINE} reports
     * @param check run on the locked payment before anything moves; its rejection is the reply
     * @return 200 with the payment as it is afterwards, or the rejection
     */
    public CommandReply drive(
        Connection connection,
        Command command,
        SandboxProvider.Action action,
        SandboxProvider.Decline decline,
        Check check)
        throws SQLException {
      if (!"test".equals(command.environment())) {
        return CommandReplies.rejected(command, ErrorCode.NOT_FOUND, "No such resource or route.");
      }
      Payment payment;
      try {
        payment =
            merchantPayments.require(
                connection,
                command.resourceId(),
                command.merchantId(),
                command.environment(),
                true);
      } catch (ApiException e) {
        return CommandReplies.rejected(command, e.code(), e.getMessage());
      }
      if (action == null) {
        if (moves.apply(connection, payment, Payment::expired) instanceof Payment.Refused refused) {
          return invalidState(command, refused);
        }
      } else {
        SandboxProvider provider = sandbox.byName(payment.provider()).orElse(null);
        if (provider == null) {
          return CommandReplies.rejected(
              command, ErrorCode.INVALID_STATE, "This payment is not with a sandbox provider.");
        }
        if (payment.status() != PaymentStatus.PENDING
            && payment.status() != PaymentStatus.PROCESSING) {
          return CommandReplies.rejected(
              command,
              ErrorCode.INVALID_STATE,
              "The payment is " + payment.status().wire() + "; it cannot change that way.");
        }
        // The merchant's own helpers check nothing: their sandbox order is not read for it.
        if (check != Check.NONE) {
          CommandReply refused =
              check.refuse(payment, provider.orderStatus(connection, payment.providerRef()));
          if (refused != null) {
            return refused;
          }
        }
        try {
          for (SandboxProvider.SignedCallback callback :
              provider.simulate(connection, payment.providerRef(), action, decline)) {
            callbacks.receive(connection, provider, callback.body(), callback.signature());
          }
        } catch (SandboxProvider.Refused e) {
          return CommandReplies.rejected(command, ErrorCode.INVALID_STATE, e.getMessage());
        }
      }
      Payment after = payments.find(connection, payment.id()).orElseThrow();
      return CommandReplies.ok(command, 200, moves.json(after));
    }

    private static CommandReply invalidState(Command command, Payment.Refused refused) {
      return CommandReplies.rejected(
          command,
          ErrorCode.INVALID_STATE,
          "The payment is "
              + refused.from().wire()
              + "; it cannot become "
              + refused.to().wire()
              + ".");
    }
  }
}
