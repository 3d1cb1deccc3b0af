package ph.payments.platform.micronaut;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.time.Clock;
import ph.payments.platform.outbox.OutboxState;
import ph.payments.platform.tx.Transactions;

/**
 * The service's outbox state on its internal API, for the gateway's {@code GET /admin/v1/outbox}.
 * Only where the internal token is required, so never on the gateway's public port.
 */
@Controller("/internal/outbox")
@Requires(property = "internal.require-token", value = "true")
@ExecuteOn(TaskExecutors.BLOCKING)
public class OutboxStateController {

  private final Transactions transactions;
  private final Clock clock;
  private final String service;

  public OutboxStateController(
      Transactions transactions,
      Clock clock,
      @Value("${micronaut.application.name}") String service) {
    this.transactions = transactions;
    this.clock = clock;
    this.service = service;
  }

  @Get
  public ObjectNode state() {
    return transactions.inTransaction(
        connection -> OutboxState.report(connection, service, clock.instant()));
  }
}
