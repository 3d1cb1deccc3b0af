package ph.payments.platform.ids;

/**
 * An event of the canonical event log. Its body encodes the event's position, (writing transaction,
 * sequence), so event ids sort exactly as the log lists events.
 */
public record EventId(String value) implements TypedId {

  public EventId {
    IdType.EVENT.parse(value);
  }

  public static EventId of(long transactionId, long sequence) {
    return new EventId(IdType.eventId(transactionId, sequence));
  }

  public long transactionId() {
    return IdType.eventTransaction(value);
  }

  public long sequence() {
    return IdType.eventSequence(value);
  }

  @Override
  public String toString() {
    return value;
  }
}
