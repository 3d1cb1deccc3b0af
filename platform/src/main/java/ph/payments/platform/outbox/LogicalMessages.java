package ph.payments.platform.outbox;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import ph.payments.contracts.Envelope;
import ph.payments.platform.json.Json;

/**
 * The content of an outbox message written to the WAL ({@code pg_logical_emit_message}) instead of
 * the outbox table: what {@link OutboxWriter} emits and {@link LogicalOutboxRelay} reads back.
 *
 * <p>Layout (big-endian): version byte 1; topic, message id, key and type as length-prefixed UTF-8
 * ({@code int} length); the write time in epoch microseconds ({@code long}); the attributes as JSON
 * text (length 0 when none); the payload (length-prefixed bytes).
 */
final class LogicalMessages {

  /** The prefix of every outbox message; the relay ignores messages with any other. */
  static final String PREFIX = "ph.payments.outbox";

  private static final byte VERSION = 1;

  /** A message read back: its topic and the envelope to publish. */
  record Decoded(String topic, Envelope envelope) implements RelaySends.Outgoing {}

  static byte[] encode(OutboxMessage message, Instant writtenAt, Map<String, String> attributes) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(256 + message.payload().length);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(VERSION);
      writeText(out, message.topic());
      writeText(out, message.messageId());
      writeText(out, message.key());
      writeText(out, message.type());
      out.writeLong(
          Math.addExact(
              Math.multiplyExact(writtenAt.getEpochSecond(), 1_000_000L),
              writtenAt.getNano() / 1_000));
      writeText(out, attributes.isEmpty() ? "" : Json.toText(attributes));
      out.writeInt(message.payload().length);
      out.write(message.payload());
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
    return bytes.toByteArray();
  }

  /**
   * @throws IllegalArgumentException when {@code content} is not a message of this layout
   */
  @SuppressWarnings("unchecked")
  static Decoded decode(ByteBuffer content) {
    try {
      byte version = content.get();
      if (version != VERSION) {
        throw new IllegalArgumentException("unknown outbox message version " + version);
      }
      String topic = readText(content);
      String messageId = readText(content);
      String key = readText(content);
      String type = readText(content);
      long micros = content.getLong();
      String attributes = readText(content);
      byte[] payload = new byte[content.getInt()];
      content.get(payload);
      Instant writtenAt =
          Instant.ofEpochSecond(
              Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
      Map<String, String> attributeMap =
          attributes.isEmpty()
              ? Map.of()
              : Json.fromBytes(attributes.getBytes(StandardCharsets.UTF_8), Map.class);
      return new Decoded(
          topic, new Envelope(messageId, type, key, writtenAt, payload, attributeMap));
    } catch (BufferUnderflowException | NegativeArraySizeException e) {
      throw new IllegalArgumentException("truncated outbox message", e);
    }
  }

  private static void writeText(DataOutputStream out, String text) throws IOException {
    byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
    out.writeInt(utf8.length);
    out.write(utf8);
  }

  private static String readText(ByteBuffer in) {
    byte[] utf8 = new byte[in.getInt()];
    in.get(utf8);
    return new String(utf8, StandardCharsets.UTF_8);
  }

  private LogicalMessages() {}
}
