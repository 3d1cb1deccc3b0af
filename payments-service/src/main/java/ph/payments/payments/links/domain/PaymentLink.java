package ph.payments.payments.links.domain;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import ph.payments.platform.errors.ErrorCode;

/**
 * A payment link (SPEC part 2 "PaymentLink"): a shareable page at {@code /l/{slug}} that creates
 * payments. {@code amount} null lets the customer enter it, {@code method} null lets them pick it.
 * {@code metadata} is held as JSON text so the domain stays plain Java.
 *
 * <p>{@code usage_count} and {@code last_used_at} count succeeded payments, never created ones.
 */
public record PaymentLink(
    String id,
    String merchantId,
    String environment,
    String slug,
    String description,
    BigDecimal amount,
    String currency,
    String method,
    String imageUrl,
    String successUrl,
    String cancelUrl,
    LinkStatus status,
    String customerId,
    int usageCount,
    Instant lastUsedAt,
    Instant expiresAt,
    String metadataJson,
    Instant createdAt,
    Instant updatedAt) {

  public PaymentLink {
    Objects.requireNonNull(id);
    Objects.requireNonNull(status);
    if (!LinkSlugs.matches(slug)) {
      throw new IllegalArgumentException("malformed slug");
    }
    if (usageCount < 0) {
      throw new IllegalArgumentException("usage_count is never below 0");
    }
  }

  /** True once {@code expires_at} has passed (at {@code expires_at} itself the link is expired). */
  public boolean expired(Instant now) {
    return expiresAt != null && !now.isBefore(expiresAt);
  }

  /** What a payment through this link asked for: each null when the request left it out. */
  public record Ask(BigDecimal amount, String method, String currency) {}

  /** The answer to {@link #charge}: what the payment takes, or why the link refuses it. */
  public sealed interface Charge permits Accepted, Refused {}

  /** The payment's amount, method and currency. */
  public record Accepted(BigDecimal amount, String method, String currency) implements Charge {}

  /**
   * The link refuses: {@code code} with {@code message}, and for {@code invalid_request} the fields
   * that differ from the link's fixed ones in {@code issues} (otherwise empty).
   */
  public record Refused(ErrorCode code, String message, Map<String, String> issues)
      implements Charge {}

  /**
   * Whether a payment asking for {@code ask} may be made through this link now, in this order (the
   * table of docs/catalog.md "Paying through a link"): inactive (or its static QR archived) 409
   * {@code link_inactive}; expired 410 {@code link_expired}; no amount on either side 400 {@code
   * amount_required}; no method on either side 400 {@code method_required}; an amount, method or
   * currency that differs from the link's fixed one 400 {@code invalid_request} naming each.
   */
  public Charge charge(Ask ask, boolean staticQrArchived, Instant now) {
    if (status == LinkStatus.INACTIVE || staticQrArchived) {
      return new Refused(
          ErrorCode.LINK_INACTIVE,
          staticQrArchived
              ? "This static QR code is archived and takes no payments."
              : "This payment link is inactive and takes no payments.",
          Map.of());
    }
    if (expired(now)) {
      return new Refused(
          ErrorCode.LINK_EXPIRED, "This payment link expired and takes no payments.", Map.of());
    }
    if (amount == null && ask.amount() == null) {
      return new Refused(
          ErrorCode.AMOUNT_REQUIRED, "This payment link needs the amount to pay.", Map.of());
    }
    if (method == null && ask.method() == null) {
      return new Refused(
          ErrorCode.METHOD_REQUIRED, "This payment link needs the method to pay with.", Map.of());
    }
    Map<String, String> issues = new LinkedHashMap<>();
    if (amount != null && ask.amount() != null && amount.compareTo(ask.amount()) != 0) {
      issues.put("amount", "must be " + amount.toPlainString() + ", the payment link's amount");
    }
    if (method != null && ask.method() != null && !method.equals(ask.method())) {
      issues.put("method", "must be " + method + ", the payment link's method");
    }
    if (ask.currency() != null && !currency.equals(ask.currency())) {
      issues.put("currency", "must be " + currency + ", the payment link's currency");
    }
    if (!issues.isEmpty()) {
      return new Refused(ErrorCode.INVALID_REQUEST, "The request has invalid fields.", issues);
    }
    return new Accepted(
        amount != null ? amount : ask.amount(), method != null ? method : ask.method(), currency);
  }
}
