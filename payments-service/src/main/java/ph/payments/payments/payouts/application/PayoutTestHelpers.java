package ph.payments.payments.payouts.application;

import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.payments.payouts.domain.Payout;
import ph.payments.payments.payouts.domain.PayoutStatus;
import ph.payments.payments.payouts.persistence.JdbcPayouts;
import ph.payments.payments.payouts.web.PayoutJson;
import ph.payments.payments.providers.ProviderCallbacks;
import ph.payments.payments.providers.sandbox.SandboxPayoutRail;
import ph.payments.payments.providers.sandbox.SandboxProvider;
import ph.payments.payments.providers.sandbox.SandboxProviders;
import ph.payments.platform.commands.CommandHandler;
import ph.payments.platform.commands.CommandReplies;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorCode;

/**
 * {@code POST /v1/test_helpers/payouts/{id}/succeed|fail} (sandbox only): decides a payout the
 * sandbox rail has not finished (queued for the batch rail's cut-off, or sent without
 * confirmation). The rail's signed callback then moves the payout through {@link
 * ProviderCallbacks}, as a real rail's would. {@code fail} refuses with {@code payout_rejected}.
 * Answers the payout as it is afterwards.
 */
@Factory
public class PayoutTestHelpers {

  public static final String PREFIX = "test_helpers.payouts.";

  @Singleton
  CommandHandler succeedPayout(Helper helper) {
    return helper.handler("succeed", SandboxPayoutRail.Action.SUCCEED);
  }

  @Singleton
  CommandHandler failPayout(Helper helper) {
    return helper.handler("fail", SandboxPayoutRail.Action.FAIL);
  }

  /** The shared logic of both helpers. */
  @Singleton
  public static class Helper {
    private final MerchantPayouts merchantPayouts;
    private final JdbcPayouts payouts;
    private final SandboxProviders sandbox;
    private final ProviderCallbacks callbacks;

    Helper(
        MerchantPayouts merchantPayouts,
        JdbcPayouts payouts,
        SandboxProviders sandbox,
        ProviderCallbacks callbacks) {
      this.merchantPayouts = merchantPayouts;
      this.payouts = payouts;
      this.sandbox = sandbox;
      this.callbacks = callbacks;
    }

    CommandHandler handler(String name, SandboxPayoutRail.Action action) {
      return CommandHandler.of(
          PREFIX + name, (connection, command) -> run(connection, command, action));
    }

    private CommandReply run(
        Connection connection, Command command, SandboxPayoutRail.Action action)
        throws SQLException {
      if (!"test".equals(command.environment())) {
        return CommandReplies.rejected(command, ErrorCode.NOT_FOUND, "No such resource or route.");
      }
      Payout payout;
      try {
        payout =
            merchantPayouts.require(
                connection, command.resourceId(), command.merchantId(), command.environment());
      } catch (ApiException e) {
        return CommandReplies.rejected(command, e.code(), e.getMessage());
      }
      if (payout.status() == PayoutStatus.SUCCEEDED || payout.status() == PayoutStatus.FAILED) {
        return CommandReplies.rejected(
            command,
            ErrorCode.INVALID_STATE,
            "The payout is " + payout.status().wire() + "; it cannot change any more.");
      }
      SandboxPayoutRail rail = sandbox.payoutRail(payout.provider()).orElse(null);
      if (rail == null) {
        return CommandReplies.rejected(
            command, ErrorCode.INVALID_STATE, "This payout is not with a sandbox rail.");
      }
      // The rail's books are locked first, then (by the callback) the payout: the order the
      // batch job uses too.
      try {
        for (SandboxProvider.SignedCallback callback :
            rail.simulate(
                connection,
                payout.providerRef(),
                action,
                SandboxProvider.Decline.requested(command.body(), SandboxPayoutRail.REJECTED))) {
          callbacks.receive(connection, rail, callback.body(), callback.signature());
        }
      } catch (SandboxProvider.Refused e) {
        return CommandReplies.rejected(command, ErrorCode.INVALID_STATE, e.getMessage());
      }
      Payout after = payouts.find(connection, payout.id()).orElseThrow();
      return CommandReplies.ok(command, 200, PayoutJson.of(after));
    }
  }
}
