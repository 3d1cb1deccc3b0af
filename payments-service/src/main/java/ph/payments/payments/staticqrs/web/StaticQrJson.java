package ph.payments.payments.staticqrs.web;

import com.fasterxml.jackson.databind.node.ObjectNode;
import ph.payments.payments.links.web.PaymentLinkJson;
import ph.payments.payments.staticqrs.domain.StaticQr;
import ph.payments.platform.json.Json;

/**
 * The static QR resource as SPEC part 2 lists its fields, in that order. {@code url} is its link's
 * page, {@code qr_svg_url} the printable SVG of that URL.
 */
public final class StaticQrJson {

  public static ObjectNode of(StaticQr q, String publicBaseUrl) {
    String url = PaymentLinkJson.url(publicBaseUrl, q.linkSlug());
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("id", q.id());
    json.put("object", "static_qr");
    json.put("environment", q.environment());
    json.put("name", q.name());
    json.put("reference", q.reference());
    json.put("location", q.location());
    json.put("payment_link_id", q.paymentLinkId());
    json.put("url", url);
    json.put("qr_svg_url", url + "/qr.svg");
    json.put("default_method", q.defaultMethod());
    json.put("currency", q.currency());
    json.put("archived", q.archived());
    json.put("archived_at", q.archivedAt() == null ? null : q.archivedAt().getEpochSecond());
    json.put("created", q.createdAt().getEpochSecond());
    return json;
  }

  private StaticQrJson() {}
}
