package ph.payments.payments.links.web;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import ph.payments.payments.links.domain.PaymentLink;
import ph.payments.platform.json.Json;

/** The payment link resource as SPEC part 2 lists its fields, in that order. */
public final class PaymentLinkJson {

  /**
   * @param publicBaseUrl the gateway's public base, e.g. {@code http://localhost:8080}
   */
  public static ObjectNode of(PaymentLink l, String publicBaseUrl) {
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("id", l.id());
    json.put("object", "payment_link");
    json.put("environment", l.environment());
    json.put("amount", l.amount());
    json.put("currency", l.currency());
    json.put("method", l.method());
    json.put("description", l.description());
    json.put("image_url", l.imageUrl());
    json.put("success_url", l.successUrl());
    json.put("cancel_url", l.cancelUrl());
    json.put("status", l.status().wire());
    json.put("customer_id", l.customerId());
    json.put("usage_count", l.usageCount());
    json.put("last_used_at", seconds(l.lastUsedAt()));
    json.put("expires_at", seconds(l.expiresAt()));
    json.set("metadata", Json.tree(l.metadataJson()));
    json.put("created", l.createdAt().getEpochSecond());
    json.put("url", url(publicBaseUrl, l.slug()));
    return json;
  }

  /** The link's public page, {@code {base}/l/{slug}}. */
  public static String url(String publicBaseUrl, String slug) {
    return publicBaseUrl + "/l/" + slug;
  }

  static Long seconds(Instant instant) {
    return instant == null ? null : instant.getEpochSecond();
  }

  private PaymentLinkJson() {}
}
