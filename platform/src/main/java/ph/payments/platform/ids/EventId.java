package ph.payments.platform.ids;

/**
 * An event of the canonical event log; its body encodes the log sequence, so ids sort as the log.
 */
public record EventId(String value) implements TypedId {

  public EventId {
    IdType.EVENT.parse(value);
  }

  public static EventId ofSequence(long sequence) {
    return new EventId(IdType.eventId(sequence));
  }

  public long sequence() {
    return IdType.eventSequence(value);
  }

  @Override
  public String toString() {
    return value;
  }
}
