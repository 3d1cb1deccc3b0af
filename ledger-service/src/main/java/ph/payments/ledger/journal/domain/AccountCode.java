package ph.payments.ledger.journal.domain;

import java.util.Locale;

/**
 * The chart of accounts. Every account belongs to one merchant, environment and currency (so no
 * single row is shared by all merchants and becomes a hot spot); platform-wide figures are sums
 * over merchants. Balances are credit-positive: a positive balance is owed by the platform, a
 * negative one is owed to it. See {@code docs/ledger.md}.
 */
public enum AccountCode {

  /**
   * What the platform owes the merchant and the merchant may pay out: the balance of {@code GET
   * /v1/balance}. Credited with a payment's net amount, debited by refunds and payout holds. May go
   * negative through refunds (reported, not hidden); never through a payout hold.
   */
  MERCHANT_AVAILABLE,

  /** Debited from available by a payout hold, until the payout settles or fails. */
  MERCHANT_PAYOUTS_IN_FLIGHT,

  /** Fees the platform earned from this merchant: payment fees and payout fees. */
  PLATFORM_FEES,

  /**
   * Money on its way between the platform and the providers (acquirers, wallets, payout rails).
   * Debited with a payment's gross amount (the provider owes it to the platform), credited with
   * what leaves through refunds and payouts. Its balance is normally negative.
   */
  PROVIDER_CLEARING;

  /** The wire and database form, e.g. {@code merchant_available}. */
  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static AccountCode fromWire(String value) {
    return valueOf(value.toUpperCase(Locale.ROOT));
  }
}
