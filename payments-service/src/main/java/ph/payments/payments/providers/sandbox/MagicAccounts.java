package ph.payments.payments.providers.sandbox;

import java.util.Map;
import java.util.Optional;
import ph.payments.payments.payments.domain.Failure;

/**
 * Destination account numbers that make a sandbox payout fail with a named code, or never get a
 * confirmation, so merchants can test their handling of each (docs/refunds-payouts.md). Any other
 * account number is paid.
 */
public final class MagicAccounts {

  /** What the receiving institution does with a payout to this account. */
  public sealed interface Behaviour permits Pays, Fails, Stalls {}

  /** Credits the account. */
  public record Pays() implements Behaviour {}

  /** Refuses the payout. */
  public record Fails(Failure failure) implements Behaviour {}

  /** Never confirms: the payout stays {@code processing} until a test helper decides. */
  public record Stalls() implements Behaviour {}

  private static final Failure CLOSED =
      new Failure("account_closed", "The recipient's account is closed.");
  private static final Failure INVALID =
      new Failure("invalid_account", "The receiving institution has no such account.");

  private static final Map<String, Behaviour> ACCOUNTS =
      Map.of(
          "0000000001", new Fails(CLOSED),
          "09000000001", new Fails(CLOSED),
          "0000000002", new Fails(INVALID),
          "09000000002", new Fails(INVALID),
          "0000000003",
              new Fails(
                  new Failure(
                      "account_name_mismatch",
                      "The account name does not match the receiving bank's records.")),
          "09000000003",
              new Fails(
                  new Failure(
                      "wallet_limit_exceeded",
                      "The recipient's wallet cannot receive this amount (wallet limit).")),
          "0000000009", new Stalls(),
          "09000000009", new Stalls());

  public static Behaviour of(String accountNo) {
    return Optional.ofNullable(ACCOUNTS.get(accountNo)).orElse(new Pays());
  }

  private MagicAccounts() {}
}
