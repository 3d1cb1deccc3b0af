package ph.payments.payments.qr;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The acquirer of a QR Ph merchant, written in tag 28 sub-tag 01 as its SWIFT BIC (ISO 9362): four
 * letters of institution, "PH", two characters of location, optionally three of branch. Real
 * examples seen in published QR Ph payloads: {@code RCBCPHMMXXX}, {@code PAEYPHM2XXX}, {@code
 * GXCHPHM2XXX}.
 *
 * <p>Which BIC a provider uses is part of that provider's contract and lives in its configuration,
 * not here. The only value this class fixes is {@link #SANDBOX}: under ISO 9362 a location code
 * whose second character is "0" marks a test-and-training BIC, which no live payment network
 * routes, so a sandbox payload that somehow reached a real bank app still names no real acquirer.
 *
 * @param bic 8 or 11 characters, uppercase, country code PH
 */
public record AcquirerId(String bic) {

  private static final Pattern PHILIPPINE_BIC =
      Pattern.compile("[A-Z]{4}PH[A-Z0-9]{2}([A-Z0-9]{3})?");

  /**
   * Our sandbox acquirer: institution "SBOX", location "X0" (second character 0: a test BIC),
   * branch "XXX". Used by every test-mode payload.
   */
  public static final AcquirerId SANDBOX = new AcquirerId("SBOXPHX0XXX");

  public AcquirerId {
    Objects.requireNonNull(bic, "bic");
    if (!PHILIPPINE_BIC.matcher(bic).matches()) {
      throw new IllegalArgumentException(
          "acquirer id must be a Philippine BIC like RCBCPHMMXXX (8 or 11 characters), is '"
              + bic
              + "'");
    }
  }

  /** True for an ISO 9362 test-and-training BIC (second character of the location code is 0). */
  public boolean isTestBic() {
    return bic.charAt(7) == '0';
  }

  @Override
  public String toString() {
    return bic;
  }
}
