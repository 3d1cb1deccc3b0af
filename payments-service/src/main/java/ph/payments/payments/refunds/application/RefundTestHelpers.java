package ph.payments.payments.refunds.application;

import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.payments.providers.ProviderCallbacks;
import ph.payments.payments.providers.sandbox.SandboxProvider;
import ph.payments.payments.providers.sandbox.SandboxProviders;
import ph.payments.payments.refunds.domain.Refund;
import ph.payments.payments.refunds.domain.RefundStatus;
import ph.payments.payments.refunds.persistence.JdbcRefunds;
import ph.payments.payments.refunds.web.RefundJson;
import ph.payments.platform.commands.CommandHandler;
import ph.payments.platform.commands.CommandReplies;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorCode;

/**
 * {@code POST /v1/test_helpers/refunds/{id}/succeed|fail} (sandbox only): decides a refund the
 * sandbox provider did not answer at once (a bank transfer's, or a QR Ph refund queued for
 * operators). The provider's signed callback then moves the refund through {@link
 * ProviderCallbacks}, as a real provider's would. Answers the refund as it is afterwards.
 */
@Factory
public class RefundTestHelpers {

  public static final String PREFIX = "test_helpers.refunds.";

  @Singleton
  CommandHandler succeedRefund(Helper helper) {
    return helper.handler("succeed", SandboxProvider.RefundAction.SUCCEED);
  }

  @Singleton
  CommandHandler failRefund(Helper helper) {
    return helper.handler("fail", SandboxProvider.RefundAction.FAIL);
  }

  /** The shared logic of both helpers. */
  @Singleton
  public static class Helper {
    private final MerchantRefunds merchantRefunds;
    private final JdbcRefunds refunds;
    private final SandboxProviders sandbox;
    private final ProviderCallbacks callbacks;

    Helper(
        MerchantRefunds merchantRefunds,
        JdbcRefunds refunds,
        SandboxProviders sandbox,
        ProviderCallbacks callbacks) {
      this.merchantRefunds = merchantRefunds;
      this.refunds = refunds;
      this.sandbox = sandbox;
      this.callbacks = callbacks;
    }

    CommandHandler handler(String name, SandboxProvider.RefundAction action) {
      return CommandHandler.of(
          PREFIX + name, (connection, command) -> run(connection, command, action));
    }

    private CommandReply run(
        Connection connection, Command command, SandboxProvider.RefundAction action)
        throws SQLException {
      if (!"test".equals(command.environment())) {
        return CommandReplies.rejected(command, ErrorCode.NOT_FOUND, "No such resource or route.");
      }
      Refund refund;
      try {
        refund =
            merchantRefunds.require(
                connection, command.resourceId(), command.merchantId(), command.environment());
      } catch (ApiException e) {
        return CommandReplies.rejected(command, e.code(), e.getMessage());
      }
      if (refund.status() == RefundStatus.SUCCEEDED || refund.status() == RefundStatus.FAILED) {
        return CommandReplies.rejected(
            command,
            ErrorCode.INVALID_STATE,
            "The refund is " + refund.status().wire() + "; it cannot change any more.");
      }
      SandboxProvider provider = sandbox.byName(refund.provider()).orElse(null);
      if (provider == null) {
        return CommandReplies.rejected(
            command, ErrorCode.INVALID_STATE, "This refund is not with a sandbox provider.");
      }
      // The sandbox's books are locked first, then (by the callback) the payment and the refund:
      // the same order as any other report of the provider.
      try {
        for (SandboxProvider.SignedCallback callback :
            provider.simulateRefund(
                connection,
                refund.providerRef(),
                action,
                SandboxProvider.Decline.requested(
                    command.body(), SandboxProvider.Decline.REFUND_DEFAULT))) {
          callbacks.receive(connection, provider, callback.body(), callback.signature());
        }
      } catch (SandboxProvider.Refused e) {
        return CommandReplies.rejected(command, ErrorCode.INVALID_STATE, e.getMessage());
      }
      Refund after = refunds.find(connection, refund.id()).orElseThrow();
      return CommandReplies.ok(command, 200, RefundJson.of(after));
    }
  }
}
