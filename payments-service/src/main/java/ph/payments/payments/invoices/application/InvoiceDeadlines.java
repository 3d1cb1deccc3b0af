package ph.payments.payments.invoices.application;

import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.payments.events.EventLog;
import ph.payments.payments.invoices.domain.Invoice;
import ph.payments.payments.invoices.persistence.JdbcInvoices;
import ph.payments.payments.invoices.web.InvoiceJson;
import ph.payments.platform.tx.Transactions;

/**
 * The invoice deadline job, on the injected clock: a two-stage invoice whose deposit window passed
 * with the deposit not paid in full is forfeited ({@link Invoice#forfeited}, {@code
 * invoice.forfeited}); an invoice whose balance fell due ({@link Invoice#balanceDue}: deposit paid,
 * or the term elapsed) gets {@code invoice.balance_due}. Each invoice moves in its own transaction
 * under its row lock, with its event, so each event is written once per invoice even with several
 * replicas (the second finds {@code forfeited_at} or {@code balance_due_announced_at} set).
 */
@Singleton
public class InvoiceDeadlines {

  public static final String BALANCE_DUE = "invoice.balance_due";
  public static final String FORFEITED = "invoice.forfeited";

  private static final Logger log = LoggerFactory.getLogger(InvoiceDeadlines.class);
  private static final int BATCH = 200;

  private final JdbcInvoices invoices;
  private final Invoices facade;
  private final EventLog events;
  private final Transactions transactions;
  private final Clock clock;

  public InvoiceDeadlines(
      JdbcInvoices invoices,
      Invoices facade,
      EventLog events,
      Transactions transactions,
      Clock clock) {
    this.invoices = invoices;
    this.facade = facade;
    this.events = events;
    this.transactions = transactions;
    this.clock = clock;
  }

  @Scheduled(fixedDelay = "${payments.invoice-sweep:30s}", initialDelay = "10s")
  void sweep() {
    try {
      runDue();
    } catch (RuntimeException e) {
      log.warn("invoice deadline sweep failed; the next one retries: {}", e.toString());
    }
  }

  /** Acts on every invoice due now; returns how many events were written. */
  public int runDue() {
    int written = 0;
    String after = null;
    List<String> due;
    do {
      String from = after;
      due =
          transactions.inTransaction(c -> invoices.withDeadlines(c, clock.instant(), from, BATCH));
      for (String id : due) {
        written += transactions.inTransaction(c -> act(c, id));
        after = id;
      }
    } while (due.size() == BATCH);
    return written;
  }

  private int act(Connection connection, String id) throws SQLException {
    Invoice v = invoices.lock(connection, id).orElseThrow();
    Instant now = clock.instant();
    // Re-checked under the lock: a payment may have moved it meanwhile.
    if (v.forfeitable(now)) {
      Invoice forfeited = v.forfeited(now);
      invoices.update(connection, forfeited);
      append(connection, forfeited, FORFEITED);
      return 1;
    }
    if (v.balanceDue(now)) {
      Invoice announced = v.balanceDueAnnounced(now);
      invoices.update(connection, announced);
      append(connection, announced, BALANCE_DUE);
      return 1;
    }
    return 0;
  }

  private void append(Connection connection, Invoice v, String type) throws SQLException {
    events.append(
        connection,
        new EventLog.Subject(v.merchantId(), v.environment(), "invoice", v.id(), v.id()),
        type,
        InvoiceJson.of(v, facade.publicBaseUrl()));
  }
}
