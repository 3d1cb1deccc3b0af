package ph.payments.payments.payouts.web;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import ph.payments.payments.payouts.domain.Payout;
import ph.payments.platform.json.Json;

/**
 * The payout resource as SPEC part 2 lists its fields, in that order; the field SPEC calls "the
 * service" is {@code destination} (ARCHITECTURE, "Spec wording"). What the API returns and what
 * payout events carry.
 */
public final class PayoutJson {

  public static ObjectNode of(Payout p) {
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("id", p.id());
    json.put("object", "payout");
    json.put("environment", p.environment());
    json.put("status", p.status().wire());
    json.put("amount", p.amount().amount());
    json.put("currency", p.currency());
    json.put("method", p.method());
    json.put("provider", p.provider());
    json.put("provider_ref", p.providerRef());
    json.set("destination", p.destination().deepCopy());
    json.put("description", p.description());
    if (p.metadata() == null) {
      json.putNull("metadata");
    } else {
      json.set("metadata", p.metadata().deepCopy());
    }
    json.put("fee_amount", p.fee().amount());
    if (p.failure() == null) {
      json.putNull("failure");
    } else {
      ObjectNode failure = json.putObject("failure");
      failure.put("code", p.failure().code());
      failure.put("message", p.failure().message());
    }
    json.put("paid_at", seconds(p.paidAt()));
    json.put("failed_at", seconds(p.failedAt()));
    json.put("created", p.createdAt().getEpochSecond());
    return json;
  }

  private static Long seconds(Instant instant) {
    return instant == null ? null : instant.getEpochSecond();
  }

  private PayoutJson() {}
}
