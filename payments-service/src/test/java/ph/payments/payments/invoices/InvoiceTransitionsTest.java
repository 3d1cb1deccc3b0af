package ph.payments.payments.invoices;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import ph.payments.payments.invoices.domain.InvoiceStatus;
import ph.payments.payments.invoices.domain.InvoiceTransitions;
import ph.payments.payments.invoices.domain.InvoiceTransitions.Action;

/** Every (status, action) pair of the table of docs/invoices.md "State machine". */
class InvoiceTransitionsTest {

  private static final Map<InvoiceStatus, Set<Action>> DOCUMENTED =
      Map.of(
          InvoiceStatus.DRAFT,
          Set.of(Action.UPDATE_ANY, Action.UPDATE_TEXT, Action.SEND, Action.VOID),
          InvoiceStatus.SENT,
          Set.of(Action.UPDATE_TEXT, Action.VOID),
          InvoiceStatus.PARTIAL,
          Set.of(Action.UPDATE_TEXT, Action.VOID),
          InvoiceStatus.PAID,
          Set.of(Action.UPDATE_TEXT),
          InvoiceStatus.VOID,
          Set.of());

  @Test
  void everyPairIsAsDocumented() {
    for (InvoiceStatus status : InvoiceStatus.values()) {
      for (Action action : Action.values()) {
        assertEquals(
            DOCUMENTED.get(status).contains(action),
            InvoiceTransitions.allows(status, action),
            status + " " + action);
      }
    }
  }
}
