package ph.payments.gateway.idempotency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import ph.payments.contracts.commands.Command;
import ph.payments.gateway.commands.CommandBus;
import ph.payments.gateway.support.Operator;
import ph.payments.gateway.testwidgets.WidgetGatewayTest;

/**
 * How a keyed request writes its command and stores its response ({@link IdempotencyRecords}
 * against the real database): the claim of a new key guards the command's own statement, and the
 * response is stored and read back in one statement.
 */
@MicronautTest(transactional = false)
class ResponseStoreIT extends WidgetGatewayTest {

  @Inject CommandBus bus;
  @Inject Clock clock;

  /** No reply reaches the records these tests complete themselves. */
  @BeforeEach
  void pauseOwner() {
    owner.pause();
  }

  @AfterEach
  void resumeOwner() {
    owner.resume();
  }

  @Test
  void aNewKeyIsClaimedWithItsCommandAndAKeyThatExistsWritesNothing() {
    Operator.Merchant merchant = operator().createMerchant("Guarded Claim Store");
    IdempotencyRecords.Owner owner = keyOf(merchant, "guarded-");
    Command first = command(merchant);
    Command second = command(merchant);

    assertTrue(bus.acceptGuarded(first, topic(), claim(owner, first)));
    assertFalse(bus.acceptGuarded(second, topic(), claim(owner, second)));

    assertEquals(1, commandRows(first), "the admitted command is written");
    assertEquals(0, commandRows(second), "a key that exists writes no command");
    assertEquals(
        first.commandId(),
        sql()
            .text(
                "SELECT command_id FROM idempotency_keys WHERE idempotency_key = ?",
                owner.key().value()));
  }

  @Test
  void theResponseIsStoredOnceAndReadBackInOneStatement() {
    Operator.Merchant merchant = operator().createMerchant("Stored Response Store");
    IdempotencyRecords.Owner owner = keyOf(merchant, "store-");
    Command command = command(merchant);
    assertTrue(bus.acceptGuarded(command, topic(), claim(owner, command)));

    assertEquals(
        Optional.of(new Claim.Completed(command.commandId(), 201, "{\"n\":1}")),
        complete(command.commandId(), 201, "{\"n\":1}"));
    // Already completed: the first response stands and is what the statement answers.
    assertEquals(
        Optional.of(new Claim.Completed(command.commandId(), 201, "{\"n\":1}")),
        complete(command.commandId(), 500, "{\"n\":2}"));
    // No record for the command: nothing to answer.
    assertEquals(Optional.empty(), complete("cmd_unknown" + System.nanoTime(), 201, "{}"));
  }

  private Optional<Claim.Completed> complete(String commandId, int status, String body) {
    return transactions.autoCommitted(
        connection ->
            IdempotencyRecords.completeAndFind(
                connection, commandId, status, body, clock.instant()));
  }

  private Command command(Operator.Merchant merchant) {
    return widgetCreation(bus, merchant.id(), "Stored widget");
  }

  private static IdempotencyRecords.Owner keyOf(Operator.Merchant merchant, String prefix) {
    return new IdempotencyRecords.Owner(
        merchant.id(), "test", new IdempotencyKey(prefix + System.nanoTime()));
  }

  private ph.payments.platform.outbox.OutboxWriter.Write claim(
      IdempotencyRecords.Owner owner, Command command) {
    Instant now = clock.instant();
    return IdempotencyRecords.claimIfNew(
        owner,
        "POST " + WIDGETS,
        RequestFingerprint.of("POST", WIDGETS, command.body()),
        command.commandId(),
        now,
        now.plus(Duration.ofSeconds(10)));
  }

  private long commandRows(Command command) {
    return sql().number("SELECT count(*) FROM commands WHERE command_id = ?", command.commandId());
  }
}
