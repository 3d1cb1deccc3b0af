package ph.payments.payments.qr;

import java.util.List;
import java.util.Optional;

/**
 * A decoded EMVCo merchant-presented payload: its top-level data objects in payload order, the CRC
 * (tag 63) last. Only {@link EmvMpmCodec#decode} creates these, so every instance passed the strict
 * checks and {@link #encode()} gives back exactly the text that was decoded.
 *
 * @param objects the top-level data objects, tag 00 first and tag 63 last
 */
public record EmvPayload(List<Tlv> objects) {

  public EmvPayload {
    objects = List.copyOf(objects);
  }

  /** The top-level data object with {@code id}. */
  public Optional<Tlv> get(String id) {
    return objects.stream().filter(o -> o.id().equals(id)).findFirst();
  }

  /** The value of top-level tag {@code id}. */
  public Optional<String> value(String id) {
    return get(id).map(Tlv::value);
  }

  /** The value of sub-tag {@code childId} inside template {@code id}. */
  public Optional<String> value(String id, String childId) {
    return get(id).flatMap(t -> t.child(childId)).map(Tlv::value);
  }

  /** The four hexadecimal digits of tag 63. */
  public String crc() {
    return objects.get(objects.size() - 1).value();
  }

  /** Every data object but the CRC, ready for {@link EmvMpmCodec#encode} to checksum again. */
  public List<Tlv> withoutCrc() {
    return objects.subList(0, objects.size() - 1);
  }

  /** The payload text, identical to what was decoded. */
  public String encode() {
    return Tlv.concat(objects);
  }
}
