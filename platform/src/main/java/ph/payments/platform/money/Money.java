package ph.payments.platform.money;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * An exact amount in a currency's major unit (pesos, not centavos), always with scale 2, as the
 * spec's JSON numbers carry it ({@code 1500.50}). Arithmetic refuses to mix currencies. There is no
 * conversion from {@code double} on purpose.
 *
 * @param amount scale 2, may be negative (a balance can go negative through refunds)
 * @param currency ISO 4217 style code, three uppercase letters
 */
public record Money(BigDecimal amount, String currency) implements Comparable<Money> {

  /** Digits after the decimal point for every supported currency (PHP, USD, …). */
  public static final int SCALE = 2;

  /** Largest amount a single payment may carry (SPEC part 8). */
  public static final BigDecimal MAX_PAYMENT_AMOUNT = new BigDecimal("999999999999.00");

  /** Smallest positive amount. */
  public static final BigDecimal MIN_AMOUNT = new BigDecimal("0.01");

  private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");

  public Money {
    Objects.requireNonNull(amount, "amount");
    if (!isCurrencyCode(currency)) {
      throw new InvalidAmountException("currency must be three uppercase letters");
    }
    amount = exactScale(amount);
  }

  /** The amount {@code amount} of {@code currency}; more than two decimals are rejected. */
  public static Money of(BigDecimal amount, String currency) {
    return new Money(amount, currency);
  }

  /** Parses a decimal string such as {@code "100.5"}; never goes through {@code double}. */
  public static Money of(String amount, String currency) {
    try {
      return new Money(new BigDecimal(amount), currency);
    } catch (NumberFormatException e) {
      throw new InvalidAmountException("not a decimal number: " + amount);
    }
  }

  public static Money zero(String currency) {
    return new Money(BigDecimal.ZERO, currency);
  }

  /** Converts from minor units (centavos) for storage formats that use them. */
  public static Money ofMinor(long minorUnits, String currency) {
    return new Money(BigDecimal.valueOf(minorUnits, SCALE), currency);
  }

  public static boolean isCurrencyCode(String code) {
    return code != null && CURRENCY.matcher(code).matches();
  }

  /**
   * Returns {@code value} with scale exactly 2.
   *
   * @throws InvalidAmountException when it has a non-zero digit past the second decimal, such as
   *     {@code 1.005}: money is never rounded silently
   */
  public static BigDecimal exactScale(BigDecimal value) {
    try {
      return value.setScale(SCALE, RoundingMode.UNNECESSARY);
    } catch (ArithmeticException e) {
      throw new InvalidAmountException("amount must be a multiple of 0.01");
    }
  }

  public long minorUnits() {
    return amount.movePointRight(SCALE).longValueExact();
  }

  public Money plus(Money other) {
    return new Money(amount.add(sameCurrency(other).amount), currency);
  }

  public Money minus(Money other) {
    return new Money(amount.subtract(sameCurrency(other).amount), currency);
  }

  public Money negate() {
    return new Money(amount.negate(), currency);
  }

  /**
   * This amount times {@code rate}, rounded half-up to the centavo: the rule for percentage fees.
   */
  public Money times(BigDecimal rate) {
    return new Money(amount.multiply(rate).setScale(SCALE, RoundingMode.HALF_UP), currency);
  }

  public boolean isPositive() {
    return amount.signum() > 0;
  }

  public boolean isNegative() {
    return amount.signum() < 0;
  }

  public boolean isZero() {
    return amount.signum() == 0;
  }

  @Override
  public int compareTo(Money other) {
    return amount.compareTo(sameCurrency(other).amount);
  }

  private Money sameCurrency(Money other) {
    if (!currency.equals(other.currency)) {
      throw new IllegalArgumentException(
          "currency mismatch: " + currency + " and " + other.currency);
    }
    return other;
  }

  @Override
  public String toString() {
    return amount.toPlainString() + ' ' + currency;
  }
}
