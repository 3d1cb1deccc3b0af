package ph.payments.platform.kafka;

import ph.payments.contracts.Envelope;
import ph.payments.platform.inbox.IdempotentConsumer;

/** {@link BatchApplier.Parker}s shared by consumers. */
public final class Parkers {

  /**
   * For an event consumer that owes nobody an answer: the message goes into {@code consumer}'s
   * inbox, so a redelivery of it does nothing. A record without our envelope headers has no message
   * id; its parked row alone (keyed by position) is enough, since a redelivery at the same position
   * cannot happen once the offset moved on.
   */
  public static BatchApplier.Parker inbox(IdempotentConsumer inbox, String consumer) {
    return (connection, record, reason) -> {
      Envelope envelope;
      try {
        envelope = KafkaEnvelopes.fromRecord(record);
      } catch (RuntimeException unreadable) {
        return false;
      }
      inbox.apply(connection, consumer, envelope.messageId(), tx -> null);
      return false;
    };
  }

  private Parkers() {}
}
