package ph.payments.payments.invoices.domain;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The one table of what a merchant may do to an invoice in each status (docs/invoices.md "State
 * machine"). Payments and refunds move invoices too ({@link Invoice#paid}, {@link
 * Invoice#refunded}), and the job forfeits ({@link Invoice#forfeited}); paying has its own answers
 * ({@link Invoice#charge}). Anything not in the table is 400 {@code invalid_state}.
 */
public final class InvoiceTransitions {

  /** A merchant's action. */
  public enum Action {
    /** Change any field an update body has (line items, money, customer, dates, texts). */
    UPDATE_ANY,
    /** Change only description, notes, terms and metadata: nothing about money or dates. */
    UPDATE_TEXT,
    SEND,
    VOID
  }

  private static final Map<InvoiceStatus, Set<Action>> ALLOWED = new EnumMap<>(InvoiceStatus.class);

  static {
    ALLOWED.put(
        InvoiceStatus.DRAFT,
        EnumSet.of(Action.UPDATE_ANY, Action.UPDATE_TEXT, Action.SEND, Action.VOID));
    ALLOWED.put(InvoiceStatus.SENT, EnumSet.of(Action.UPDATE_TEXT, Action.VOID));
    ALLOWED.put(InvoiceStatus.PARTIAL, EnumSet.of(Action.UPDATE_TEXT, Action.VOID));
    ALLOWED.put(InvoiceStatus.PAID, EnumSet.of(Action.UPDATE_TEXT));
    ALLOWED.put(InvoiceStatus.VOID, EnumSet.noneOf(Action.class));
  }

  public static boolean allows(InvoiceStatus status, Action action) {
    return ALLOWED.get(status).contains(action);
  }

  private InvoiceTransitions() {}
}
