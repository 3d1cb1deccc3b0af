package ph.payments.payments.qr;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A dynamic QR Ph person-to-merchant (P2M) payload for one payment, and the fields it carries.
 *
 * <h2>Layout we emit</h2>
 *
 * <pre>
 * 00 "01"            payload format indicator
 * 01 "12"            dynamic: a new code for each payment, with the amount in it
 * 28 template        QR Ph P2M merchant account information:
 *    00              GUID "ph.ppmi.p2m" (live) or "ph.sandbox.test" (test mode)
 *    01              acquirer BIC
 *    03              merchant id at the acquirer
 * 52                 merchant category code
 * 53 "608"           Philippine peso
 * 54                 amount, two decimals ("1500.00")
 * 58 "PH"
 * 59                 merchant name, ASCII, at most 25
 * 60                 merchant city, ASCII, at most 15
 * 62 template        additional data:
 *    00              GUID "ph.ppmi.qrph" (live) or "ph.sandbox.test" (test mode)
 *    01              bill number, only when given
 *    05              reference label: the payment's reference
 * 63                 CRC-16/CCITT-FALSE
 * </pre>
 *
 * <p>What is certain and what is inferred: tags 00–63 and the 62 sub-tags 01 and 05 are generic
 * EMVCo. The QR Ph P2M specification itself is not public. Tag 28 with GUID {@code ph.ppmi.p2m} and
 * the acquirer BIC in 28-01 match every published real-world QR Ph P2M payload we found (RCBC,
 * Metrobank, PayMongo, Maya, StarPay, AllBank acquirers). 28-03 always holds an acquirer-assigned
 * identifier there (15-digit terminal merchant ids, "MRCHNT-4H3TZ"); that it is the "merchant id"
 * is inferred from those values, not read in a specification. The same payloads all carry a GUID in
 * 62-00 ({@code ph.ppmi.qrph} for most acquirers), which is why we write it although plain EMVCo
 * leaves 62-00 undefined. Sub-tags 28-04 and 28-05 (a 3-character value such as "000" or "310") and
 * template 88 also appear in real payloads; their meaning is not documented publicly, so we leave
 * them out rather than guess.
 *
 * <h2>Test mode</h2>
 *
 * <p>A test-mode payload is well-formed EMVCo (any decoder accepts it and its CRC is right) but
 * cannot be paid by a real bank app, for four independent reasons:
 *
 * <ol>
 *   <li>tag 28's GUID is {@code ph.sandbox.test}, not {@code ph.ppmi.p2m}: apps pick the payment
 *       network by this GUID, and no network answers to ours, so the code names no payable merchant
 *       account;
 *   <li>62-00 is {@code ph.sandbox.test} as well, so no part of the payload claims to be QR Ph;
 *   <li>the acquirer must be a test BIC ({@link AcquirerId#isTestBic()}, normally {@link
 *       AcquirerId#SANDBOX}), which no live network routes;
 *   <li>the merchant name starts with "TEST ", so a person who scans it in any app sees what it is.
 * </ol>
 *
 * Conversely a live payload refuses a test BIC: that would be a live code nobody can pay.
 */
public final class QrPhPayload {

  /** The GUID of QR Ph person-to-merchant in tag 28 sub-tag 00. */
  public static final String P2M_GUID = "ph.ppmi.p2m";

  /** The GUID live QR Ph payloads carry in tag 62 sub-tag 00. */
  public static final String ADDITIONAL_DATA_GUID = "ph.ppmi.qrph";

  /**
   * Our test-mode GUID in 28-00 and 62-00. Not a reverse domain anyone in the QR Ph network owns,
   * so no bank app can route it.
   */
  public static final String SANDBOX_GUID = "ph.sandbox.test";

  /** The prefix of every test-mode merchant name. */
  public static final String TEST_NAME_PREFIX = "TEST ";

  /**
   * The largest amount tag 54 can hold: 13 characters with two decimals leave ten integer digits.
   * An amount such as 999999999999.00 (15 characters) does not fit and is refused, never rounded or
   * cut.
   */
  public static final BigDecimal MAX_AMOUNT = new BigDecimal("9999999999.99");

  static final int MAX_NAME_LENGTH = 25;
  static final int MAX_CITY_LENGTH = 15;
  private static final int MAX_AMOUNT_LENGTH = 13;
  private static final String PESO = "608";
  private static final String PHILIPPINES = "PH";
  private static final String DYNAMIC = "12";

  /** Which network a payload is meant for. */
  public enum Mode {
    /** A payable QR Ph code, GUID {@link #P2M_GUID}. */
    LIVE,
    /** A sandbox code, GUID {@link #SANDBOX_GUID}; see the class comment for why no app pays it. */
    TEST
  }

  private final Mode mode;
  private final AcquirerId acquirerId;
  private final String merchantId;
  private final String merchantCategoryCode;
  private final BigDecimal amount;
  private final String merchantName;
  private final String merchantCity;
  private final String referenceLabel;
  private final String billNumber;
  private final String qrCode;

  private QrPhPayload(
      Mode mode,
      AcquirerId acquirerId,
      String merchantId,
      String merchantCategoryCode,
      BigDecimal amount,
      String merchantName,
      String merchantCity,
      String referenceLabel,
      String billNumber,
      String qrCode) {
    this.mode = mode;
    this.acquirerId = acquirerId;
    this.merchantId = merchantId;
    this.merchantCategoryCode = merchantCategoryCode;
    this.amount = amount;
    this.merchantName = merchantName;
    this.merchantCity = merchantCity;
    this.referenceLabel = referenceLabel;
    this.billNumber = billNumber;
    this.qrCode = qrCode;
  }

  /**
   * A payable QR Ph payload for {@code request}.
   *
   * @throws IllegalArgumentException if the acquirer is a test BIC, or the name or city has nothing
   *     left after transliteration to ASCII
   */
  public static QrPhPayload live(DynamicP2mRequest request) {
    if (request.acquirerId().isTestBic()) {
      throw new IllegalArgumentException(
          "a live QR Ph payload needs a live acquirer, "
              + request.acquirerId()
              + " is a test BIC that no bank app can pay");
    }
    return build(Mode.LIVE, request);
  }

  /**
   * A test-mode payload for {@code request}: well-formed, with a valid CRC, and unpayable (see the
   * class comment).
   *
   * @throws IllegalArgumentException if the acquirer is not a test BIC (use {@link
   *     AcquirerId#SANDBOX}), or the name or city has nothing left after transliteration
   */
  public static QrPhPayload testMode(DynamicP2mRequest request) {
    if (!request.acquirerId().isTestBic()) {
      throw new IllegalArgumentException(
          "a test-mode QR payload needs a test BIC such as "
              + AcquirerId.SANDBOX
              + ", "
              + request.acquirerId()
              + " could be a real acquirer");
    }
    return build(Mode.TEST, request);
  }

  /**
   * Reads a dynamic QR Ph P2M payload, ours or anyone's: strict EMVCo decoding first, then the QR
   * Ph rules (tag 28 with GUID {@link #P2M_GUID} or {@link #SANDBOX_GUID} and its sub-tags 01 and
   * 03, currency 608, country PH, point of initiation 12 with an amount, and a reference label in
   * 62-05).
   */
  public static QrDecoding<QrPhPayload> read(String qrCode) {
    QrDecoding<EmvPayload> decoded = EmvMpmCodec.decode(qrCode);
    if (decoded instanceof QrDecoding.Rejected<EmvPayload> rejected) {
      return rejected.retype();
    }
    EmvPayload payload = ((QrDecoding.Accepted<EmvPayload>) decoded).value();
    String guid = payload.value("28", "00").orElse(null);
    Mode mode;
    if (P2M_GUID.equals(guid)) {
      mode = Mode.LIVE;
    } else if (SANDBOX_GUID.equals(guid)) {
      mode = Mode.TEST;
    } else {
      return reject(
          QrRejection.NOT_QR_PH_P2M,
          "tag 28 with GUID " + P2M_GUID + " is missing (found " + guid + ")");
    }
    String currency = payload.value("53").orElseThrow();
    String country = payload.value("58").orElseThrow();
    if (!PESO.equals(currency) || !PHILIPPINES.equals(country)) {
      return reject(
          QrRejection.NOT_QR_PH_P2M,
          "QR Ph needs currency 608 and country PH, found " + currency + " and " + country);
    }
    String initiation = payload.value("01").orElse(null);
    String amount = payload.value("54").orElse(null);
    if (!DYNAMIC.equals(initiation) || amount == null) {
      return reject(
          QrRejection.NOT_DYNAMIC,
          "a dynamic payload needs tag 01 = 12 and an amount in tag 54, found "
              + initiation
              + " and "
              + amount);
    }
    String bic = payload.value("28", "01").orElse(null);
    String merchantId = payload.value("28", "03").orElse(null);
    String reference = payload.value("62", "05").orElse(null);
    if (bic == null || merchantId == null || reference == null) {
      return reject(
          QrRejection.MISSING_MANDATORY_TAG,
          "QR Ph P2M needs 28-01 (acquirer), 28-03 (merchant id) and 62-05 (reference label)");
    }
    AcquirerId acquirer;
    try {
      acquirer = new AcquirerId(bic);
    } catch (IllegalArgumentException e) {
      return reject(QrRejection.INVALID_VALUE, "28-01: " + e.getMessage());
    }
    return new QrDecoding.Accepted<>(
        new QrPhPayload(
            mode,
            acquirer,
            merchantId,
            payload.value("52").orElseThrow(),
            new BigDecimal(amount),
            payload.value("59").orElseThrow(),
            payload.value("60").orElseThrow(),
            reference,
            payload.value("62", "01").orElse(null),
            qrCode));
  }

  /**
   * {@code amount} as tag 54 writes it: plain digits, a point, two decimals ("0.01", "1500.00").
   *
   * @throws IllegalArgumentException if the amount is not positive, has more than two decimal
   *     places (we never round money), or exceeds {@link #MAX_AMOUNT}
   */
  public static String formatAmount(BigDecimal amount) {
    Objects.requireNonNull(amount, "amount");
    if (amount.signum() <= 0) {
      throw new IllegalArgumentException("amount must be more than zero, is " + amount);
    }
    BigDecimal cents;
    try {
      cents = amount.setScale(2, RoundingMode.UNNECESSARY);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(
          "amount must have at most two decimal places, is " + amount.toPlainString(), e);
    }
    String text = cents.toPlainString();
    if (text.length() > MAX_AMOUNT_LENGTH) {
      throw new IllegalArgumentException(
          "amount "
              + text
              + " does not fit tag 54 (13 characters); the largest QR amount is "
              + MAX_AMOUNT.toPlainString());
    }
    return text;
  }

  private static QrPhPayload build(Mode mode, DynamicP2mRequest request) {
    String guid = mode == Mode.LIVE ? P2M_GUID : SANDBOX_GUID;
    String additionalGuid = mode == Mode.LIVE ? ADDITIONAL_DATA_GUID : SANDBOX_GUID;
    String name = QrText.toPrintableAscii(request.merchantName());
    String city = QrText.toPrintableAscii(request.merchantCity());
    if (name.isEmpty() || city.isEmpty()) {
      throw new IllegalArgumentException(
          "merchant name and city need at least one character that has an ASCII form");
    }
    if (mode == Mode.TEST) {
      name = TEST_NAME_PREFIX + name;
    }
    name = QrText.cut(name, MAX_NAME_LENGTH);
    city = QrText.cut(city, MAX_CITY_LENGTH);
    String amount = formatAmount(request.amount());

    List<Tlv> additionalData = new ArrayList<>();
    additionalData.add(Tlv.primitive("00", additionalGuid));
    if (request.billNumber() != null) {
      additionalData.add(Tlv.primitive("01", request.billNumber()));
    }
    additionalData.add(Tlv.primitive("05", request.referenceLabel()));

    String qrCode =
        EmvMpmCodec.encode(
            List.of(
                Tlv.primitive("00", "01"),
                Tlv.primitive("01", DYNAMIC),
                Tlv.template(
                    "28",
                    List.of(
                        Tlv.primitive("00", guid),
                        Tlv.primitive("01", request.acquirerId().bic()),
                        Tlv.primitive("03", request.merchantId()))),
                Tlv.primitive("52", request.merchantCategoryCode()),
                Tlv.primitive("53", PESO),
                Tlv.primitive("54", amount),
                Tlv.primitive("58", PHILIPPINES),
                Tlv.primitive("59", name),
                Tlv.primitive("60", city),
                Tlv.template("62", additionalData)));
    return new QrPhPayload(
        mode,
        request.acquirerId(),
        request.merchantId(),
        request.merchantCategoryCode(),
        new BigDecimal(amount),
        name,
        city,
        request.referenceLabel(),
        request.billNumber(),
        qrCode);
  }

  private static QrDecoding<QrPhPayload> reject(QrRejection reason, String detail) {
    return new QrDecoding.Rejected<>(reason, detail);
  }

  /** Whether this payload is payable ({@link Mode#LIVE}) or a sandbox code. */
  public Mode mode() {
    return mode;
  }

  /** Tag 28 sub-tag 01. */
  public AcquirerId acquirerId() {
    return acquirerId;
  }

  /** Tag 28 sub-tag 03. */
  public String merchantId() {
    return merchantId;
  }

  /** Tag 52. */
  public String merchantCategoryCode() {
    return merchantCategoryCode;
  }

  /** Tag 54, in pesos. */
  public BigDecimal amount() {
    return amount;
  }

  /** Tag 59 as written: ASCII, at most 25 characters, "TEST "-prefixed in test mode. */
  public String merchantName() {
    return merchantName;
  }

  /** Tag 60 as written: ASCII, at most 15 characters. */
  public String merchantCity() {
    return merchantCity;
  }

  /** Tag 62 sub-tag 05, the payment's reference. */
  public String referenceLabel() {
    return referenceLabel;
  }

  /** Tag 62 sub-tag 01, or null when the payload has none. */
  public String billNumber() {
    return billNumber;
  }

  /** The payload text, the value of a payment's {@code qr_code}. */
  public String qrCode() {
    return qrCode;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof QrPhPayload that && qrCode.equals(that.qrCode);
  }

  @Override
  public int hashCode() {
    return qrCode.hashCode();
  }

  @Override
  public String toString() {
    return "QrPhPayload[" + mode + " " + qrCode + "]";
  }
}
