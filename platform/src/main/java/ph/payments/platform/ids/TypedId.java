package ph.payments.platform.ids;

/** An id whose kind is known at compile time; {@link #value()} is the full prefixed string. */
public interface TypedId {

  String value();
}
