package ph.payments.contracts;

import java.util.List;

/**
 * Kafka topic names. Every topic is keyed by the aggregate (or command) id, so everything about one
 * payment, refund or command stays in one partition and is consumed in order.
 */
public final class Topics {

  /**
   * Commands for payments-service (payments, refunds, payouts, catalog), written by the gateway.
   */
  public static final String PAYMENTS_COMMANDS = "payments.commands";

  /** Commands for webhook-service (endpoint management), written by the gateway. */
  public static final String WEBHOOKS_COMMANDS = "webhooks.commands";

  /** Replies to commands, read back by every gateway instance. */
  public static final String COMMAND_REPLIES = "gateway.command-replies";

  /** State-change events of the canonical event log, written by payments-service. */
  public static final String EVENTS = "payments.events";

  /** Every topic the system uses, so start-up can create them all before anyone subscribes. */
  public static final List<String> ALL =
      List.of(PAYMENTS_COMMANDS, WEBHOOKS_COMMANDS, COMMAND_REPLIES, EVENTS);

  private Topics() {}
}
