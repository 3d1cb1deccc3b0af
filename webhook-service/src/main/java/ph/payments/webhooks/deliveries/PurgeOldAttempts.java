package ph.payments.webhooks.deliveries;

import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.inject.Singleton;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.platform.tx.Transactions;
import ph.payments.webhooks.WebhookSettings;

/**
 * Deletes delivery attempts older than the retention (SPEC part 6: 90 days), and deliveries that
 * finished before then. Events are kept. Every instance runs it; the deletes are idempotent.
 */
@Singleton
public class PurgeOldAttempts {

  private static final Logger log = LoggerFactory.getLogger(PurgeOldAttempts.class);
  private static final int BATCH = 5_000;

  private final Transactions transactions;
  private final JdbcDeliveries deliveries;
  private final WebhookSettings settings;
  private final Clock clock;

  public PurgeOldAttempts(
      Transactions transactions, JdbcDeliveries deliveries, WebhookSettings settings, Clock clock) {
    this.transactions = transactions;
    this.deliveries = deliveries;
    this.settings = settings;
    this.clock = clock;
  }

  @Scheduled(
      fixedDelay = "${webhooks.purge.interval:1h}",
      initialDelay = "${webhooks.purge.initial-delay:5m}")
  public JdbcDeliveries.Purged purge() {
    JdbcDeliveries.Purged purged =
        deliveries.purge(transactions, clock.instant().minus(settings.retention()), BATCH);
    if (purged.attempts() > 0 || purged.deliveries() > 0) {
      log.info(
          "purged {} webhook attempts and {} finished deliveries older than {}",
          purged.attempts(),
          purged.deliveries(),
          settings.retention());
    }
    return purged;
  }
}
