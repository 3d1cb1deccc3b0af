package ph.payments.payments.staticqrs.domain;

import java.time.Instant;
import java.util.Objects;

/**
 * A static QR code (SPEC part 2 "StaticQr"): a printed code at a counter that encodes the page of
 * its open-amount payment link ({@code paymentLinkId}, whose slug is {@code linkSlug}). Archiving
 * is final: {@code archived} never goes back to false, and the link is inactive from then on.
 */
public record StaticQr(
    String id,
    String merchantId,
    String environment,
    String name,
    String reference,
    String location,
    String paymentLinkId,
    String linkSlug,
    String defaultMethod,
    String currency,
    boolean archived,
    Instant archivedAt,
    Instant createdAt,
    Instant updatedAt) {

  public StaticQr {
    Objects.requireNonNull(id);
    Objects.requireNonNull(paymentLinkId);
    if (archived != (archivedAt != null)) {
      throw new IllegalArgumentException("archived_at is set exactly when archived");
    }
  }

  /** This QR archived at {@code at}; an archived QR stays as it was (archived once). */
  public StaticQr archive(Instant at) {
    if (archived) {
      return this;
    }
    return new StaticQr(
        id,
        merchantId,
        environment,
        name,
        reference,
        location,
        paymentLinkId,
        linkSlug,
        defaultMethod,
        currency,
        true,
        at,
        createdAt,
        at);
  }
}
