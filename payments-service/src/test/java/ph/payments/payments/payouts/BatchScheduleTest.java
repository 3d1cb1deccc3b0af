package ph.payments.payments.payouts;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import ph.payments.payments.providers.sandbox.BatchSchedule;

/** The batch rail's cut-offs: 10:00 and 15:00 in Manila (UTC+8), Monday to Friday. */
class BatchScheduleTest {

  @ParameterizedTest(name = "created {0} goes with the batch at {1}")
  @CsvSource({
    // Wednesday 2026-11-25 in Manila, written in UTC.
    "2026-11-25T01:59:59Z, 2026-11-25T02:00:00Z", // 09:59:59 -> 10:00 the same day
    "2026-11-25T02:00:00Z, 2026-11-25T07:00:00Z", // 10:00:00 exactly -> 15:00
    "2026-11-25T06:59:59Z, 2026-11-25T07:00:00Z", // 14:59:59 -> 15:00
    "2026-11-25T07:00:00Z, 2026-11-26T02:00:00Z", // 15:00 -> Thursday 10:00
    "2026-11-25T16:30:00Z, 2026-11-26T02:00:00Z", // 00:30 Thursday (still Wednesday in UTC)
    "2026-11-27T07:00:01Z, 2026-11-30T02:00:00Z", // Friday 15:00:01 -> Monday 10:00
    "2026-11-28T04:00:00Z, 2026-11-30T02:00:00Z", // Saturday noon -> Monday 10:00
    "2026-11-29T23:00:00Z, 2026-11-30T02:00:00Z" // Monday 07:00 -> 10:00
  })
  void aPayoutJoinsTheFirstCutOffAfterItWasCreated(String created, String batch) {
    assertEquals(Instant.parse(batch), BatchSchedule.nextBatch(Instant.parse(created)));
  }
}
