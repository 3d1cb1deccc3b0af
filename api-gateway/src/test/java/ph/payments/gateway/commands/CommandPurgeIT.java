package ph.payments.gateway.commands;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Sql;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.tx.Transactions;

/**
 * The command log keeps answered commands for 48 hours after their reply, and commands without a
 * reply for ever; a command an idempotency record still refers to waits for that record's purge.
 */
@MicronautTest(transactional = false)
class CommandPurgeIT extends GatewayTest {

  @Inject CommandPurge purge;
  @Inject Transactions transactions;
  @Inject Clock clock;

  @Test
  void answeredCommandsPastTheRetentionGoAndEverythingElseStays() {
    Instant now = clock.instant();
    String oldAnswered = command(now.minus(Duration.ofDays(5)), now.minus(Duration.ofHours(49)));
    String recentAnswered = command(now.minus(Duration.ofDays(5)), now.minus(Duration.ofHours(47)));
    String neverAnswered = command(now.minus(Duration.ofDays(30)), null);
    String referenced = command(now.minus(Duration.ofDays(3)), now.minus(Duration.ofDays(3)));
    idempotencyRecord(referenced, now.minus(Duration.ofDays(3)));

    assertTrue(purge.purge() >= 1);

    Sql sql = new Sql(transactions);
    String exists = "SELECT count(*) FROM commands WHERE command_id = ?";
    assertEquals(0, sql.number(exists, oldAnswered), "answered more than 48 hours ago");
    assertEquals(1, sql.number(exists, recentAnswered), "answered 47 hours ago");
    assertEquals(1, sql.number(exists, neverAnswered), "still waiting for its reply");
    assertEquals(1, sql.number(exists, referenced), "its idempotency record is not purged yet");
  }

  @Test
  void aRetentionShorterThanTheIdempotencyWindowIsRefused() {
    assertThrows(
        IllegalStateException.class,
        () -> new CommandPurge(transactions, clock, Duration.ofHours(23)));
  }

  private String command(Instant created, Instant replied) {
    return CommandRows.insert(transactions, "test.purge", "{}", null, created, replied);
  }

  private void idempotencyRecord(String commandId, Instant created) {
    transactions.inTransaction(
        c -> {
          try (PreparedStatement insert =
              c.prepareStatement(
                  "INSERT INTO idempotency_keys (merchant_id, environment, idempotency_key, route,"
                      + " fingerprint, command_id, status, response_status, response_body,"
                      + " created_at, completed_at) VALUES (?, 'test', ?, 'POST /v1/test', 'f', ?,"
                      + " 'completed', 200, '{}', ?, ?)")) {
            insert.setString(1, IdType.MERCHANT.generate());
            insert.setString(2, "key-" + commandId);
            insert.setString(3, commandId);
            insert.setTimestamp(4, Timestamp.from(created));
            insert.setTimestamp(5, Timestamp.from(created));
            return insert.executeUpdate();
          }
        });
  }
}
