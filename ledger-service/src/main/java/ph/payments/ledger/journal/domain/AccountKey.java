package ph.payments.ledger.journal.domain;

import java.util.Objects;
import ph.payments.platform.money.Money;

/**
 * Names one account: which kind, whose, in which environment and currency. Test and live accounts
 * are different accounts, so test money can never reach a live balance.
 */
public record AccountKey(AccountCode code, String merchantId, String environment, String currency) {

  public AccountKey {
    Objects.requireNonNull(code, "code");
    Objects.requireNonNull(merchantId, "merchantId");
    if (!"test".equals(environment) && !"live".equals(environment)) {
      throw new IllegalArgumentException("environment must be test or live: " + environment);
    }
    if (!Money.isCurrencyCode(currency)) {
      throw new IllegalArgumentException("not a currency code: " + currency);
    }
  }

  /** The account of the same merchant, environment and currency with another code. */
  public AccountKey sibling(AccountCode other) {
    return new AccountKey(other, merchantId, environment, currency);
  }

  public static AccountKey of(
      AccountCode code, String merchantId, String environment, String currency) {
    return new AccountKey(code, merchantId, environment, currency);
  }
}
