package ph.payments.platform.errors;

import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Every error code of SPEC part 7 and the one HTTP status each maps to. This is the only place that
 * mapping lives; every service answers through it. Statuses the spec states are taken from it; the
 * others are the choices recorded in {@code docs/decisions.md}.
 */
public enum ErrorCode {
  INVALID_REQUEST(400),
  INVALID_STATE(400),
  INSUFFICIENT_BALANCE(400),
  NO_ROUTE(400),
  UNAUTHENTICATED(401),
  INSUFFICIENT_SCOPE(403),
  NOT_FOUND(404),
  RATE_LIMITED(429),

  PROVIDER_ERROR(502),
  INTERNAL_ERROR(500),
  EMAIL_TAKEN(409),
  INVALID_TOKEN(401),
  ALREADY_USED(409),
  CONFLICT(409),
  CUSTOMER_NOT_FOUND(404),
  DUPLICATE_SKU(409),
  MERCHANT_INACTIVE(403),
  MERCHANT_NOT_LIVE(403),
  IP_NOT_ALLOWED(403),
  /** The payment link is inactive, or its static QR is archived (docs/decisions.md). */
  LINK_INACTIVE(409),
  /** The payment link's {@code expires_at} has passed: gone for good (docs/decisions.md). */
  LINK_EXPIRED(410),
  AMOUNT_REQUIRED(400),
  METHOD_REQUIRED(400),
  SHIPMENT_NOT_FOUND(404),
  SHIPMENT_CLOSED(400),
  /** Paying an invoice that is paid in full (docs/decisions.md, issue 17). */
  INVOICE_PAID(409),
  /** Paying a void or forfeited invoice. */
  INVOICE_VOID(409),
  /** Paying a draft invoice. */
  INVOICE_NOT_SENT(409),
  /** An invoice payment other than the amount due now when partial payment is not allowed. */
  PARTIAL_NOT_ALLOWED(400);

  private static final Map<String, ErrorCode> BY_CODE =
      Arrays.stream(values()).collect(Collectors.toMap(ErrorCode::code, Function.identity()));

  private final int httpStatus;

  ErrorCode(int httpStatus) {
    this.httpStatus = httpStatus;
  }

  /** The wire form, e.g. {@code invalid_request}. */
  public String code() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  public int httpStatus() {
    return httpStatus;
  }

  public static Optional<ErrorCode> fromCode(String code) {
    return Optional.ofNullable(BY_CODE.get(code));
  }

  /**
   * The code to use for an error that did not come with one, such as a framework's 404 for an
   * unknown route or 413 for an oversized body.
   */
  public static ErrorCode forStatus(int status) {
    return switch (status) {
      case 401 -> UNAUTHENTICATED;
      case 403 -> INSUFFICIENT_SCOPE;
      case 404 -> NOT_FOUND;
      case 409 -> CONFLICT;
      case 429 -> RATE_LIMITED;
      default -> status >= 500 ? INTERNAL_ERROR : INVALID_REQUEST;
    };
  }
}
