package ph.payments.ledger.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import org.junit.jupiter.api.Test;
import ph.payments.contracts.Envelope;
import ph.payments.ledger.support.Events;
import ph.payments.ledger.support.LedgerTest;

/**
 * Parked anomalies on the internal API ({@code /internal/anomalies}, behind the gateway's {@code
 * /admin/v1/ledger/anomalies}): events the real consumer path parked are listed whole, open ones by
 * default and paged; resolving one keeps it (with the note) and takes it out of the audit's count,
 * once; bad ids and notes are refused.
 */
@MicronautTest(transactional = false)
class AnomaliesIT extends LedgerTest {

  @Test
  void parkedEventsAreListedAndResolvingOneTakesItOutOfTheAudit() {
    // Events without a merchant cannot be posted: ApplyEvent parks them.
    Envelope first = Events.paymentSucceeded(null, "test", Events.payment(), "1.00", "0.00");
    Envelope second = Events.paymentSucceeded(null, "test", Events.payment(), "2.00", "0.00");
    apply(first, second);

    JsonNode open = get("/internal/anomalies", null, null).json();
    assertEquals(2, open.get("open").asLong(), open.toString());
    assertEquals(first.messageId(), open.at("/data/0/message_id").asText());
    assertEquals("payment.succeeded", open.at("/data/0/message_type").asText());
    assertTrue(
        open.at("/data/0/payload/data/object/id").asText().startsWith("pay_"), "the payload whole");
    String firstId = open.at("/data/0/id").asText();

    JsonNode page = get("/internal/anomalies?limit=1", null, null).json();
    assertEquals(1, page.get("data").size());
    assertTrue(page.get("has_more").asBoolean());
    JsonNode next = get("/internal/anomalies?limit=1&starting_after=" + firstId, null, null).json();
    assertEquals(second.messageId(), next.at("/data/0/message_id").asText());

    Response resolved =
        post(
            "/internal/anomalies/" + firstId + "/resolve",
            "{\"resolution\":\"posted by hand, ticket OPS-12\"}");
    assertEquals(200, resolved.status(), resolved.body());
    assertEquals("posted by hand, ticket OPS-12", resolved.json().get("resolution").asText());
    assertFalse(resolved.json().get("resolved_at").isNull());
    Response again =
        post("/internal/anomalies/" + firstId + "/resolve", "{\"resolution\":\"other note\"}");
    assertEquals(200, again.status());
    assertEquals("posted by hand, ticket OPS-12", again.json().get("resolution").asText());

    JsonNode after = get("/internal/anomalies", null, null).json();
    assertEquals(1, after.get("open").asLong());
    assertEquals(second.messageId(), after.at("/data/0/message_id").asText());
    assertEquals(
        firstId,
        get("/internal/anomalies?status=resolved", null, null).json().at("/data/0/id").asText());
    assertEquals(2, get("/internal/anomalies?status=all", null, null).json().get("data").size());
    JsonNode audit = get("/internal/audit", null, null).json();
    assertEquals(1, audit.at("/anomalies/count").asLong(), "only open anomalies count");

    assertEquals(400, post("/internal/anomalies/" + firstId + "/resolve", "{}").status());
    assertEquals(
        404, post("/internal/anomalies/999999/resolve", "{\"resolution\":\"x\"}").status());
    assertEquals(404, post("/internal/anomalies/abc/resolve", "{\"resolution\":\"x\"}").status());
    assertEquals(400, get("/internal/anomalies?status=closed", null, null).status());
    assertEquals(400, get("/internal/anomalies?limit=0", null, null).status());
  }
}
