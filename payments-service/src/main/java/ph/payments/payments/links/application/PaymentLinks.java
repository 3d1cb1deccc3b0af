package ph.payments.payments.links.application;

import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;
import ph.payments.payments.links.domain.LinkSlugs;
import ph.payments.payments.links.domain.PaymentLink;
import ph.payments.payments.links.persistence.JdbcPaymentLinks;
import ph.payments.payments.links.web.PaymentLinkJson;
import ph.payments.platform.ids.IdType;

/**
 * What the rest of payments-service asks of payment links: creating one with a fresh slug (a link
 * of its own or a static QR's), the link a payment is made through, counting a succeeded payment,
 * and the link's public URL and {@code cancel_url} for the hosted pages.
 */
@Singleton
public class PaymentLinks {

  /** Slug draws before giving up; a clash of ~95-bit slugs is already next to impossible. */
  private static final int SLUG_ATTEMPTS = 5;

  private final JdbcPaymentLinks links;
  private final String publicBaseUrl;

  public PaymentLinks(
      JdbcPaymentLinks links, @Value("${payments.public-base-url}") String publicBaseUrl) {
    this.links = links;
    this.publicBaseUrl = publicBaseUrl;
  }

  /** A link about to be stored, with everything but its slug. */
  public interface Draft {
    PaymentLink withSlug(String slug);
  }

  /**
   * Stores the link with a fresh unique slug (drawn again on the rare clash).
   *
   * @return the stored link
   */
  public PaymentLink insert(Connection connection, Draft draft) throws SQLException {
    for (int i = 0; i < SLUG_ATTEMPTS; i++) {
      PaymentLink link = draft.withSlug(LinkSlugs.generate());
      if (links.insert(connection, link)) {
        return link;
      }
      if (links.find(connection, link.id()).isPresent()) {
        throw new IllegalStateException("payment link " + link.id() + " exists already");
      }
    }
    throw new IllegalStateException("no free slug after " + SLUG_ATTEMPTS + " attempts");
  }

  /** A link a payment may name, with whether its static QR (if any) is archived. */
  public record ForPayment(PaymentLink link, boolean staticQrArchived) {}

  /**
   * The link {@code payment_link_id} names, if it is the merchant's in this environment (another
   * environment's counts as missing: a payment never links across environments).
   */
  public Optional<ForPayment> forPayment(
      Connection connection, String id, String merchantId, String environment) throws SQLException {
    if (!IdType.PAYMENT_LINK.matches(id)) {
      return Optional.empty();
    }
    Optional<PaymentLink> link =
        links
            .share(connection, id)
            .filter(l -> l.merchantId().equals(merchantId) && l.environment().equals(environment));
    if (link.isEmpty()) {
      return Optional.empty();
    }
    boolean archived =
        links
            .staticQrOf(connection, id)
            .map(JdbcPaymentLinks.StaticQrFacet::archived)
            .orElse(false);
    return Optional.of(new ForPayment(link.get(), archived));
  }

  /**
   * Counts a payment of the link that succeeded at {@code at}. Call it only from the payment's move
   * to {@code succeeded}, in that transaction: the move happens once per payment, so the count does
   * too.
   */
  public void recordUse(Connection connection, String paymentLinkId, Instant at)
      throws SQLException {
    links.recordUse(connection, paymentLinkId, at);
  }

  /**
   * Where a customer who abandons a payment made through the link goes: the link's {@code
   * cancel_url}, or empty (no link, or none set).
   */
  public Optional<String> cancelUrlOf(Connection connection, String paymentLinkId)
      throws SQLException {
    if (paymentLinkId == null) {
      return Optional.empty();
    }
    return links.find(connection, paymentLinkId).map(PaymentLink::cancelUrl);
  }

  /** The link's public page. */
  public String url(String slug) {
    return PaymentLinkJson.url(publicBaseUrl, slug);
  }

  public String publicBaseUrl() {
    return publicBaseUrl;
  }
}
