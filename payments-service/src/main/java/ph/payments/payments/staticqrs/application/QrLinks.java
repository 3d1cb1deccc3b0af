package ph.payments.payments.staticqrs.application;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import ph.payments.payments.links.domain.LinkStatus;
import ph.payments.payments.links.domain.PaymentLink;
import ph.payments.payments.links.persistence.JdbcPaymentLinks;
import ph.payments.payments.staticqrs.domain.StaticQr;

/**
 * Keeps a static QR's payment link in step with the QR, in the caller's transaction: description
 * the QR's name, currency the QR's, and {@code inactive} once the QR is archived. The link is
 * locked after the QR (the one order every writer of both takes).
 */
@Singleton
public class QrLinks {

  private final JdbcPaymentLinks links;

  public QrLinks(JdbcPaymentLinks links) {
    this.links = links;
  }

  public void follow(Connection connection, StaticQr qr, Instant now) throws SQLException {
    PaymentLink l =
        links
            .lock(connection, qr.paymentLinkId())
            .orElseThrow(
                () -> new IllegalStateException("link of static QR " + qr.id() + " vanished"));
    LinkStatus status = qr.archived() ? LinkStatus.INACTIVE : l.status();
    if (l.description().equals(qr.name())
        && l.currency().equals(qr.currency())
        && l.status() == status) {
      return;
    }
    links.update(
        connection,
        new PaymentLink(
            l.id(),
            l.merchantId(),
            l.environment(),
            l.slug(),
            qr.name(),
            l.amount(),
            qr.currency(),
            l.method(),
            l.imageUrl(),
            l.successUrl(),
            l.cancelUrl(),
            status,
            l.customerId(),
            l.usageCount(),
            l.lastUsedAt(),
            l.expiresAt(),
            l.metadataJson(),
            l.createdAt(),
            now));
  }
}
