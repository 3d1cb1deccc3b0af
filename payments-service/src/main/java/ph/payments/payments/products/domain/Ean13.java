package ph.payments.payments.products.domain;

import java.util.function.IntSupplier;

/**
 * EAN-13 barcodes. Generated ones start with a GS1 restricted-circulation prefix (20–29), which GS1
 * never assigns to a company, so a generated barcode can never be a real product's.
 */
public final class Ean13 {

  /** The check digit of the first 12 digits: weights 1 and 3 alternating from the left. */
  public static int checkDigit(String twelveDigits) {
    if (twelveDigits.length() != 12 || !twelveDigits.chars().allMatch(Character::isDigit)) {
      throw new IllegalArgumentException("12 digits are required");
    }
    int sum = 0;
    for (int i = 0; i < 12; i++) {
      int digit = twelveDigits.charAt(i) - '0';
      sum += i % 2 == 0 ? digit : 3 * digit;
    }
    return (10 - sum % 10) % 10;
  }

  /** True when {@code code} is 13 digits whose last is the check digit of the others. */
  public static boolean valid(String code) {
    return code != null
        && code.length() == 13
        && code.chars().allMatch(Character::isDigit)
        && checkDigit(code.substring(0, 12)) == code.charAt(12) - '0';
  }

  /**
   * A barcode in the restricted-circulation range: "2", then 11 digits from {@code digits} (each
   * call 0–9), then the check digit.
   */
  public static String restrictedCirculation(IntSupplier digits) {
    StringBuilder code = new StringBuilder("2");
    for (int i = 0; i < 11; i++) {
      int digit = digits.getAsInt();
      if (digit < 0 || digit > 9) {
        throw new IllegalArgumentException("digits are 0 to 9");
      }
      code.append(digit);
    }
    return code.append(checkDigit(code.toString())).toString();
  }

  private Ean13() {}
}
