package ph.payments.payments.providers.sandbox;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.List;

/**
 * When the sandbox batch rail ({@code bank_transfer_nrt}) sends its batches: at 10:00 and 15:00
 * Philippine time (UTC+8, no daylight saving), Monday to Friday. A payout joins the first batch
 * strictly after it was created: one created at 09:59 goes at 10:00, one created at 10:00 or later
 * goes at 15:00, and one created after 15:00 on a Friday goes at 10:00 on Monday. Bank holidays are
 * not modelled.
 */
public final class BatchSchedule {

  public static final ZoneId MANILA = ZoneId.of("Asia/Manila");
  public static final List<LocalTime> CUT_OFFS = List.of(LocalTime.of(10, 0), LocalTime.of(15, 0));

  /** The first cut-off strictly after {@code now}. */
  public static Instant nextBatch(Instant now) {
    ZonedDateTime local = now.atZone(MANILA);
    LocalDate day = local.toLocalDate();
    for (int i = 0; i < 8; i++, day = day.plusDays(1)) {
      if (day.getDayOfWeek() == DayOfWeek.SATURDAY || day.getDayOfWeek() == DayOfWeek.SUNDAY) {
        continue;
      }
      for (LocalTime cutOff : CUT_OFFS) {
        ZonedDateTime batch = day.atTime(cutOff).atZone(MANILA);
        if (batch.isAfter(local)) {
          return batch.toInstant();
        }
      }
    }
    throw new IllegalStateException("no weekday within a week of " + now);
  }

  private BatchSchedule() {}
}
