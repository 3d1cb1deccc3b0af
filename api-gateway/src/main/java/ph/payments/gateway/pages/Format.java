package ph.payments.gateway.pages;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.URI;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Map;

/** How the hosted pages write money, times, methods and links for a customer in the Philippines. */
public final class Format {

  /** Pages show times in Philippine time, whatever the server's zone. */
  public static final ZoneId MANILA = ZoneId.of("Asia/Manila");

  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("d MMM yyyy, h:mm a", Locale.ENGLISH).withZone(MANILA);

  private static final DateTimeFormatter DAY =
      DateTimeFormatter.ofPattern("d MMM yyyy", Locale.ENGLISH);

  private static final Map<String, String> METHODS =
      Map.of(
          "card", "Card",
          "rail1_qr", "QR Ph",
          "ewallet1", "E-wallet",
          "ewallet1_qr", "E-wallet QR",
          "bank_transfer", "Bank transfer",
          "bank_transfer_nrt", "Bank transfer (real time)");

  /** {@code ₱1,500.00} for pesos; {@code USD 1,200.00} for other currencies. */
  public static String money(BigDecimal amount, String currency) {
    DecimalFormat format =
        new DecimalFormat("#,##0.00", DecimalFormatSymbols.getInstance(Locale.US));
    format.setRoundingMode(RoundingMode.HALF_EVEN);
    String number = format.format(amount);
    return "PHP".equals(currency) ? "₱" + number : currency + " " + number;
  }

  /** {@code 25 Nov 2026, 3:04 PM} in Asia/Manila. */
  public static String time(long epochSeconds) {
    return TIME.format(Instant.ofEpochSecond(epochSeconds));
  }

  /** {@code 31 Dec 2026}: a day, such as an invoice's due date. */
  public static String day(java.time.LocalDate date) {
    return DAY.format(date);
  }

  /** {@code 31 Dec 2026}: the day in Asia/Manila of an instant. */
  public static String day(long epochSeconds) {
    return DAY.format(Instant.ofEpochSecond(epochSeconds).atZone(MANILA));
  }

  /** A method's name for people: {@code rail1_qr} is "QR Ph". */
  public static String method(String method) {
    return METHODS.getOrDefault(method, method);
  }

  /**
   * {@code url} when it is an absolute http(s) URL, else null: merchant-supplied URLs (return,
   * success, cancel, image) are URIs that could as well say {@code javascript:}, and a page never
   * turns one of those into a link.
   */
  public static String webUrl(String url) {
    if (url == null) {
      return null;
    }
    try {
      URI uri = new URI(url);
      String scheme = uri.getScheme();
      return scheme != null
              && (scheme.equalsIgnoreCase("https") || scheme.equalsIgnoreCase("http"))
              && uri.getHost() != null
          ? url
          : null;
    } catch (java.net.URISyntaxException e) {
      return null;
    }
  }

  /**
   * A wallet deep link ({@code ewallet1://pay?…}) or web URL the provider gave, or null when its
   * scheme is one a page must never link ({@code javascript:}, {@code data:}, …).
   */
  public static String appUrl(String url) {
    if (url == null) {
      return null;
    }
    String lower = url.toLowerCase(Locale.ROOT);
    return lower.matches("[a-z][a-z0-9+.-]*://.+")
            && !lower.startsWith("javascript")
            && !lower.startsWith("data")
            && !lower.startsWith("vbscript")
        ? url
        : null;
  }

  private Format() {}
}
