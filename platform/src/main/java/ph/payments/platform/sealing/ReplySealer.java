package ph.payments.platform.sealing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Collection;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Seals the secret-bearing fields of a command reply (a new webhook signing secret) so that the
 * reply can rest in the owner's outbox, on {@code gateway.command-replies}, in the gateway's
 * command log and in its idempotency records without the secret being readable there. The owner
 * seals; only the gateway opens, and only while it writes the HTTP response to the merchant.
 *
 * <p>AES-256-GCM under {@code REPLY_SEALING_KEY} (32 random bytes, base64), shared by the gateway
 * and the owners that seal. The associated data is {@code "reply|<command id>|<field>"}, so a
 * sealed value opens only in the reply of the command it was made for and only as the field it was
 * made for: copying it into another reply, or into another field, does not open.
 *
 * <p>Sealed form, a JSON string: {@value #PREFIX} then base64url without padding of one version
 * byte, the 12-byte nonce, the ciphertext and the 16-byte tag.
 */
public final class ReplySealer {

  public static final String PREFIX = "sealed:v1:";

  /** 32 bytes that every development setup shares: never protects anything real. */
  static final byte[] DEVELOPMENT_KEY = sha256("development-only-reply-sealing-key");

  private static final Logger log = LoggerFactory.getLogger(ReplySealer.class);
  private static final byte VERSION = 1;
  private static final int KEY_BYTES = 32;
  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final SecretKeySpec key;

  /**
   * @param key exactly 32 bytes
   */
  public ReplySealer(byte[] key) {
    if (key == null || key.length != KEY_BYTES) {
      throw new IllegalArgumentException("the reply sealing key must be 32 bytes");
    }
    this.key = new SecretKeySpec(key.clone(), "AES");
  }

  /**
   * The sealer for the configured key. Without a key it refuses (so a production service does not
   * start) unless development keys are allowed, when it uses a public development key and warns.
   *
   * @param base64Key {@code REPLY_SEALING_KEY}: 32 bytes in base64 (standard or url-safe), or empty
   * @throws IllegalStateException when the key is missing and development keys are not allowed, or
   *     when it is not 32 bytes of base64 (the message never contains the key)
   */
  public static ReplySealer configured(String base64Key, boolean allowDevelopmentKeys) {
    if (base64Key == null || base64Key.isBlank()) {
      if (!allowDevelopmentKeys) {
        throw new IllegalStateException(
            "REPLY_SEALING_KEY is not set: set it to 32 random bytes in base64 (the same value on"
                + " the gateway and webhook-service), or set ALLOW_DEVELOPMENT_KEYS=true for local"
                + " development");
      }
      log.warn(
          "REPLY_SEALING_KEY is not set: secrets in command replies are sealed with the public"
              + " development key (ALLOW_DEVELOPMENT_KEYS=true); never do this in production");
      return new ReplySealer(DEVELOPMENT_KEY);
    }
    byte[] key;
    try {
      String text = base64Key.strip();
      key =
          text.indexOf('-') >= 0 || text.indexOf('_') >= 0
              ? Base64.getUrlDecoder().decode(text)
              : Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("REPLY_SEALING_KEY is not base64");
    }
    if (key.length != KEY_BYTES) {
      throw new IllegalStateException(
          "REPLY_SEALING_KEY must be 32 bytes in base64, got " + key.length + " bytes");
    }
    return new ReplySealer(key);
  }

  /** True for a value in the sealed form (it may still fail to open). */
  public static boolean isSealed(String value) {
    return value != null && value.startsWith(PREFIX);
  }

  /** {@code plaintext} sealed for {@code field} of the reply to {@code commandId}. */
  public String seal(String plaintext, String commandId, String field) {
    byte[] nonce = new byte[NONCE_BYTES];
    RANDOM.nextBytes(nonce);
    try {
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
      cipher.updateAAD(associatedData(commandId, field));
      byte[] sealed = cipher.doFinal(plaintext.getBytes(StandardCharsets.UTF_8));
      byte[] out =
          ByteBuffer.allocate(1 + NONCE_BYTES + sealed.length)
              .put(VERSION)
              .put(nonce)
              .put(sealed)
              .array();
      return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(out);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is part of every Java runtime", e);
    }
  }

  /**
   * The plaintext of a value sealed by {@link #seal} for the same command and field.
   *
   * @throws SealedValueException when the value is not in the sealed form, was altered, or was
   *     sealed for another command, another field or under another key
   */
  public String open(String sealed, String commandId, String field) {
    if (!isSealed(sealed)) {
      throw new SealedValueException("not a sealed value");
    }
    byte[] bytes;
    try {
      bytes = Base64.getUrlDecoder().decode(sealed.substring(PREFIX.length()));
    } catch (IllegalArgumentException e) {
      throw new SealedValueException("a sealed value is not base64url");
    }
    if (bytes.length < 1 + NONCE_BYTES + TAG_BITS / 8 || bytes[0] != VERSION) {
      throw new SealedValueException("not a sealed value of version " + VERSION);
    }
    try {
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, bytes, 1, NONCE_BYTES));
      cipher.updateAAD(associatedData(commandId, field));
      byte[] plain = cipher.doFinal(bytes, 1 + NONCE_BYTES, bytes.length - 1 - NONCE_BYTES);
      return new String(plain, StandardCharsets.UTF_8);
    } catch (AEADBadTagException e) {
      // Never the value or the key in the message: only that it did not open.
      throw new SealedValueException(
          "a sealed reply field does not open: REPLY_SEALING_KEY differs between the gateway and"
              + " the owner, or the value was altered or copied from another reply");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is part of every Java runtime", e);
    }
  }

  /**
   * A copy of {@code body} whose top-level {@code fields} are opened where they hold a sealed
   * value; other values (an error envelope, a field absent or null) are left as they are. The body
   * itself is not changed.
   *
   * @throws SealedValueException when a sealed value does not open
   */
  public JsonNode openFields(JsonNode body, String commandId, Collection<String> fields) {
    if (body == null || !body.isObject() || fields.isEmpty()) {
      return body;
    }
    ObjectNode copy = null;
    for (String field : fields) {
      JsonNode value = body.get(field);
      if (value != null && value.isTextual() && isSealed(value.textValue())) {
        if (copy == null) {
          copy = ((ObjectNode) body).deepCopy();
        }
        copy.put(field, open(value.textValue(), commandId, field));
      }
    }
    return copy == null ? body : copy;
  }

  /** A sealed value that cannot be opened. */
  public static final class SealedValueException extends IllegalStateException {
    public SealedValueException(String message) {
      super(message);
    }
  }

  private static byte[] associatedData(String commandId, String field) {
    if (commandId == null || commandId.isEmpty() || field == null || field.isEmpty()) {
      throw new IllegalArgumentException("a sealed value needs its command id and field");
    }
    return ("reply|" + commandId + "|" + field).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] sha256(String value) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
