package ph.payments.payments.refunds.web;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import ph.payments.payments.refunds.domain.Refund;
import ph.payments.platform.json.Json;

/**
 * The refund resource as SPEC part 2 lists its fields, in that order, with {@code currency} added
 * after {@code amount} (docs/decisions.md): what the API returns and what refund events carry.
 */
public final class RefundJson {

  public static ObjectNode of(Refund r) {
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("id", r.id());
    json.put("object", "refund");
    json.put("environment", r.environment());
    json.put("payment", r.paymentId());
    json.put("amount", r.amount().amount());
    json.put("currency", r.currency());
    json.put("status", r.status().wire());
    json.put("reason", r.reason());
    json.put("provider_ref", r.providerRef());
    if (r.failure() == null) {
      json.putNull("failure");
    } else {
      ObjectNode failure = json.putObject("failure");
      failure.put("code", r.failure().code());
      failure.put("message", r.failure().message());
    }
    json.put("succeeded_at", seconds(r.succeededAt()));
    json.put("failed_at", seconds(r.failedAt()));
    json.put("created", r.createdAt().getEpochSecond());
    return json;
  }

  private static Long seconds(Instant instant) {
    return instant == null ? null : instant.getEpochSecond();
  }

  private RefundJson() {}
}
