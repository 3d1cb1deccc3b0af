package ph.payments.platform.tracing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class RequestIdsTest {

  @Test
  void aSafeIdIsKept() {
    for (String kept : new String[] {"a", "Shop-42_retry.3", "A".repeat(128), "0.0-_"}) {
      assertEquals(kept, RequestIds.acceptOrGenerate(kept));
    }
  }

  @Test
  void anUnsafeOrMissingIdIsReplacedByAFreshOne() {
    String[] refused = {
      null, "", " ", "has space", "new\nline", "cr\rlf", "semi;colon", "é", "a/b", "A".repeat(129)
    };
    for (String given : refused) {
      String replaced = RequestIds.acceptOrGenerate(given);
      assertTrue(replaced.matches("req_[0-9a-f]{24}"), given + " → " + replaced);
      assertTrue(RequestIds.isValid(replaced));
    }
    assertNotEquals(RequestIds.generate(), RequestIds.generate());
    assertEquals(10, Arrays.stream(refused).map(RequestIds::acceptOrGenerate).distinct().count());
  }
}
