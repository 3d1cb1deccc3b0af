package ph.payments.payments.links.web;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.context.annotation.Value;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import ph.payments.payments.links.domain.LinkSlugs;
import ph.payments.payments.links.domain.PaymentLink;
import ph.payments.payments.links.persistence.JdbcPaymentLinks;
import ph.payments.payments.providers.ProviderRouter;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.json.Json;
import ph.payments.platform.tx.Transactions;

/**
 * What the gateway's public link page ({@code /l/{slug}}), its QR image and the static QR print
 * view need, found by the slug only (no merchant scope: the customer has no key). The shape is the
 * contract in docs/catalog.md ("The public link read"). {@code id} and {@code merchant_id} are for
 * the gateway (merchant name, the payment command's {@code payment_link_id}), never rendered;
 * nothing else private is here (no usage, metadata or customer).
 */
@Controller("/internal/public/links")
@ExecuteOn(TaskExecutors.BLOCKING)
public class PublicLinksController {

  private final Transactions transactions;
  private final JdbcPaymentLinks links;
  private final ProviderRouter router;
  private final Clock clock;
  private final String publicBaseUrl;

  public PublicLinksController(
      Transactions transactions,
      JdbcPaymentLinks links,
      ProviderRouter router,
      Clock clock,
      @Value("${payments.public-base-url}") String publicBaseUrl) {
    this.transactions = transactions;
    this.links = links;
    this.router = router;
    this.clock = clock;
    this.publicBaseUrl = publicBaseUrl;
  }

  private record Found(PaymentLink link, Optional<JdbcPaymentLinks.StaticQrFacet> staticQr) {}

  @Get("/{slug}")
  public ObjectNode link(String slug) {
    if (!LinkSlugs.matches(slug)) {
      throw ApiException.notFound("payment link");
    }
    Found found =
        transactions
            .inTransaction(
                c -> {
                  Optional<PaymentLink> link = links.findBySlug(c, slug);
                  return link.isEmpty()
                      ? Optional.<Found>empty()
                      : Optional.of(new Found(link.get(), links.staticQrOf(c, link.get().id())));
                })
            .orElseThrow(() -> ApiException.notFound("payment link"));
    PaymentLink l = found.link();
    ObjectNode json = Json.mapper().createObjectNode();
    // id and merchant_id are for the gateway (the link payment's command), never rendered.
    json.put("id", l.id());
    json.put("merchant_id", l.merchantId());
    json.put("environment", l.environment());
    json.put("slug", l.slug());
    json.put("url", PaymentLinkJson.url(publicBaseUrl, l.slug()));
    json.put("description", l.description());
    json.put("image_url", l.imageUrl());
    json.put("amount", l.amount());
    json.put("currency", l.currency());
    json.put("method", l.method());
    ArrayNode methods = json.putArray("methods");
    List<String> offered =
        l.method() != null ? List.of(l.method()) : router.methods(l.environment(), l.currency());
    offered.forEach(methods::add);
    json.put("status", l.status().wire());
    json.put("expired", l.expired(clock.instant()));
    json.put("expires_at", PaymentLinkJson.seconds(l.expiresAt()));
    json.put("success_url", l.successUrl());
    json.put("cancel_url", l.cancelUrl());
    if (found.staticQr().isEmpty()) {
      json.putNull("static_qr");
    } else {
      JdbcPaymentLinks.StaticQrFacet qr = found.staticQr().get();
      ObjectNode staticQr = json.putObject("static_qr");
      staticQr.put("name", qr.name());
      staticQr.put("location", qr.location());
      staticQr.put("default_method", qr.defaultMethod());
      staticQr.put("archived", qr.archived());
    }
    return json;
  }
}
