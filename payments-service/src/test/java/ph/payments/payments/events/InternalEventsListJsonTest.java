package ph.payments.payments.events;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import ph.payments.platform.json.Json;

class InternalEventsListJsonTest {

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void theStoredBodiesAreTheListsDataByteForByte() {
    // Spacing and key order as stored, a non-ASCII name: kept exactly, not re-serialised.
    byte[] first = utf8("{\"id\":\"evt_1\",\"data\":{\"name\":\"Niño's Sari-sari\"}}");
    byte[] second = utf8("{\"id\": \"evt_2\", \"type\":\"payment.failed\"}");
    String json =
        new String(
            InternalEventsController.listJson(new EventLog.Page(List.of(first, second), true)),
            StandardCharsets.UTF_8);

    assertEquals(
        "{\"object\":\"list\",\"data\":["
            + new String(first, StandardCharsets.UTF_8)
            + ","
            + new String(second, StandardCharsets.UTF_8)
            + "],\"has_more\":true}",
        json);
    JsonNode parsed = Json.tree(utf8(json));
    assertEquals("evt_2", parsed.get("data").get(1).get("id").asText());
  }

  @Test
  void anEmptyPageIsAnEmptyList() {
    JsonNode parsed =
        Json.tree(InternalEventsController.listJson(new EventLog.Page(List.of(), false)));
    assertEquals("list", parsed.get("object").asText());
    assertEquals(0, parsed.get("data").size());
    assertEquals(false, parsed.get("has_more").asBoolean());
  }
}
