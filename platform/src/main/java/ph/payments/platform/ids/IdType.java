package ph.payments.platform.ids;

import java.util.Objects;

/**
 * The kinds of id the system hands out, each with its prefix from SPEC part 2. Ids are the prefix,
 * an underscore and a body that sorts in creation order:
 *
 * <ul>
 *   <li>most kinds use a 26-character time-ordered body ({@link TimeOrderedIds});
 *   <li>{@link #EVENT} uses a 13-character body derived from the event log's sequence, so event ids
 *       sort in exactly the order of the log (clients keep "the highest processed event id").
 * </ul>
 *
 * Parsing is strict: the prefix must be this kind's and the body must have the right length and
 * alphabet (lowercase Crockford base32).
 */
public enum IdType {
  MERCHANT("mer"),
  API_KEY("key"),
  PAYMENT("pay"),
  REFUND("re"),
  PAYOUT("po"),
  EVENT("evt", 2 * SequenceIds.LENGTH),
  WEBHOOK_ENDPOINT("whe"),
  CUSTOMER("cus"),
  PRODUCT("prd"),
  INVOICE("inv"),
  PAYMENT_LINK("plk"),
  STATIC_QR("sqr"),
  SHIPMENT("shp"),
  COMMAND("cmd"),
  /** A signing key of embed tokens (api-gateway): the {@code kid} of their JWS header. */
  EMBED_KEY("ek"),
  MESSAGE("msg");

  private final String prefix;
  private final int bodyLength;

  IdType(String prefix) {
    this(prefix, TimeOrderedIds.LENGTH);
  }

  IdType(String prefix, int bodyLength) {
    this.prefix = prefix;
    this.bodyLength = bodyLength;
  }

  /** The prefix without the underscore, e.g. {@code pay}. */
  public String prefix() {
    return prefix;
  }

  /** A new id of this kind, later than every id this JVM generated before. */
  public String generate() {
    if (this == EVENT) {
      throw new IllegalStateException("event ids come from the event log sequence");
    }
    return prefix + '_' + TimeOrderedIds.next();
  }

  /** The event id for a position in the event log: writing transaction, then sequence. */
  public static String eventId(long transactionId, long sequence) {
    return EVENT.prefix + '_' + SequenceIds.encode(transactionId) + SequenceIds.encode(sequence);
  }

  /** The writing transaction an event id stands for. */
  public static long eventTransaction(String eventId) {
    String body = EVENT.parse(eventId).substring(EVENT.prefix.length() + 1);
    return SequenceIds.decode(body.substring(0, SequenceIds.LENGTH));
  }

  /** The log sequence an event id stands for. */
  public static long eventSequence(String eventId) {
    String body = EVENT.parse(eventId).substring(EVENT.prefix.length() + 1);
    return SequenceIds.decode(body.substring(SequenceIds.LENGTH));
  }

  /** True when {@code id} is a well-formed id of this kind. */
  public boolean matches(String id) {
    if (id == null || id.length() != prefix.length() + 1 + bodyLength) {
      return false;
    }
    if (!id.startsWith(prefix) || id.charAt(prefix.length()) != '_') {
      return false;
    }
    for (int i = prefix.length() + 1; i < id.length(); i++) {
      if (Base32.value(id.charAt(i)) < 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * Returns {@code id} unchanged when it is a well-formed id of this kind.
   *
   * @throws InvalidIdException otherwise
   */
  public String parse(String id) {
    if (!matches(id)) {
      throw new InvalidIdException(this, Objects.toString(id));
    }
    return id;
  }
}
