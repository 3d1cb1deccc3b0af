package ph.payments.payments.invoices.domain;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;

/**
 * When an invoice's money falls due and how it is numbered, fixed when it is sent (docs/invoices.md
 * "Due dates" and "Numbers"). Days and years are Philippine ones (Asia/Manila, UTC+8, no DST).
 *
 * <ul>
 *   <li>{@code balance_due_at}: the end of {@code due_date} in Manila (23:59:59+08:00); null
 *       without a due date (then only the deposit's payment makes a balance due);
 *   <li>{@code deposit_due_at} (two-stage invoices only): {@link #DEPOSIT_WINDOW} after sending,
 *       but never after {@code balance_due_at}.
 * </ul>
 */
public final class InvoiceTerms {

  public static final ZoneId MANILA = ZoneId.of("Asia/Manila");

  /** How long a customer has to pay a deposit after the invoice is sent. */
  public static final Duration DEPOSIT_WINDOW = Duration.ofDays(7);

  public static Instant balanceDueAt(LocalDate dueDate) {
    return dueDate == null
        ? null
        : dueDate.atTime(LocalTime.of(23, 59, 59)).atZone(MANILA).toInstant();
  }

  public static Instant depositDueAt(Instant sentAt, Instant balanceDueAt) {
    Instant window = sentAt.plus(DEPOSIT_WINDOW);
    return balanceDueAt != null && balanceDueAt.isBefore(window) ? balanceDueAt : window;
  }

  /** The Manila date at {@code at}. */
  public static LocalDate manilaDate(Instant at) {
    return at.atZone(MANILA).toLocalDate();
  }

  /** {@code INV-YYYY-NNNN}: the year of sending in Manila and the merchant's count in it. */
  public static String number(int year, long sequence) {
    return String.format("INV-%04d-%04d", year, sequence);
  }

  private InvoiceTerms() {}
}
