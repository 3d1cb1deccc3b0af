package ph.payments.payments.qr;

import java.math.BigDecimal;
import java.util.Objects;

/**
 * What a dynamic QR Ph person-to-merchant payload is built from: one payment, one amount, one
 * reference. Identifiers are taken as given and refused when they do not fit, because shortening a
 * reference would break reconciliation; display text (name, city) is transliterated and shortened
 * by {@link QrPhPayload} instead, because a payer only reads it.
 *
 * @param acquirerId the acquirer's BIC, written in tag 28 sub-tag 01
 * @param merchantId the merchant's id at that acquirer, tag 28 sub-tag 03: 1 to 25 printable ASCII
 *     characters
 * @param merchantCategoryCode ISO 18245 code, four digits, tag 52
 * @param amount in pesos, more than zero, at most two decimal places, at most {@link
 *     QrPhPayload#MAX_AMOUNT} (tag 54 holds 13 characters)
 * @param merchantName any text; written transliterated to ASCII and cut to 25 characters (tag 59)
 * @param merchantCity any text; written transliterated to ASCII and cut to 15 characters (tag 60)
 * @param referenceLabel the payment's reference, tag 62 sub-tag 05: 1 to 25 printable ASCII
 *     characters. A {@code pay_…} id has 30 characters and does not fit; pass the provider
 *     reference or another reference of at most 25.
 * @param billNumber optional (null for none), tag 62 sub-tag 01: 1 to 25 printable ASCII characters
 */
public record DynamicP2mRequest(
    AcquirerId acquirerId,
    String merchantId,
    String merchantCategoryCode,
    BigDecimal amount,
    String merchantName,
    String merchantCity,
    String referenceLabel,
    String billNumber) {

  /** EMVCo's limit for the reference label and bill number sub-tags of tag 62. */
  public static final int MAX_REFERENCE_LENGTH = 25;

  /**
   * Tag 28 must stay within 99 characters; with the GUID and the BIC that leaves 65, and the
   * identifiers seen in published QR Ph payloads have at most 25.
   */
  public static final int MAX_MERCHANT_ID_LENGTH = 25;

  public DynamicP2mRequest {
    Objects.requireNonNull(acquirerId, "acquirerId");
    Objects.requireNonNull(amount, "amount");
    requireIdentifier("merchantId", merchantId, MAX_MERCHANT_ID_LENGTH);
    Objects.requireNonNull(merchantCategoryCode, "merchantCategoryCode");
    if (!merchantCategoryCode.matches("[0-9]{4}")) {
      throw new IllegalArgumentException(
          "merchantCategoryCode must be four digits, is '" + merchantCategoryCode + "'");
    }
    QrPhPayload.formatAmount(amount);
    Objects.requireNonNull(merchantName, "merchantName");
    Objects.requireNonNull(merchantCity, "merchantCity");
    requireIdentifier("referenceLabel", referenceLabel, MAX_REFERENCE_LENGTH);
    if (billNumber != null) {
      requireIdentifier("billNumber", billNumber, MAX_REFERENCE_LENGTH);
    }
  }

  private static void requireIdentifier(String field, String value, int max) {
    Objects.requireNonNull(value, field);
    if (value.isEmpty() || value.length() > max || !QrText.isPrintableAscii(value)) {
      throw new IllegalArgumentException(
          field + " must have 1.." + max + " printable ASCII characters, is '" + value + "'");
    }
  }
}
