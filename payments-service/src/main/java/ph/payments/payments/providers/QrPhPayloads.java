package ph.payments.payments.providers;

import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import ph.payments.payments.qr.AcquirerId;
import ph.payments.payments.qr.DynamicP2mRequest;
import ph.payments.payments.qr.QrPhPayload;

/**
 * QR Ph payloads for QR payments. Test mode uses the sandbox acquirer and the unpayable test
 * marking of {@link QrPhPayload#testMode}; live mode uses the configured acquirer ({@code
 * QRPH_ACQUIRER_BIC}). The merchant's id at the acquirer is derived from our merchant id (a
 * pay_/mer_ id is too long for the 25 characters QR Ph allows); the reference label is the provider
 * reference, which reconciles the payment.
 */
@Singleton
public class QrPhPayloads implements QrPayloads {

  private final AcquirerId liveAcquirer;
  private final String merchantCategoryCode;
  private final String merchantCity;

  public QrPhPayloads(
      @Value("${payments.qr.acquirer-bic:PAGGPHM1XXX}") String liveAcquirerBic,
      @Value("${payments.qr.mcc:5999}") String merchantCategoryCode,
      @Value("${payments.qr.merchant-city:Manila}") String merchantCity) {
    this.liveAcquirer = new AcquirerId(liveAcquirerBic);
    this.merchantCategoryCode = merchantCategoryCode;
    this.merchantCity = merchantCity;
  }

  @Override
  public String payload(ProviderAdapter.Registration r, String providerRef) {
    boolean live = "live".equals(r.environment());
    DynamicP2mRequest request =
        new DynamicP2mRequest(
            live ? liveAcquirer : AcquirerId.SANDBOX,
            acquirerMerchantId(r.merchantId()),
            merchantCategoryCode,
            r.amount().amount(),
            r.merchantName(),
            merchantCity,
            providerRef,
            null);
    return (live ? QrPhPayload.live(request) : QrPhPayload.testMode(request)).qrCode();
  }

  /** "AGG" + 20 hex digits of SHA-256(merchant id): stable, unique enough, 23 characters. */
  static String acquirerMerchantId(String merchantId) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(merchantId.getBytes(StandardCharsets.UTF_8));
      return "AGG" + HexFormat.of().withUpperCase().formatHex(digest).substring(0, 20);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
