package ph.payments.webhooks.signing;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Encrypts signing secrets at rest with AES-256-GCM. The key is the SHA-256 of the configured
 * {@code WEBHOOK_SECRET_KEY}; each value gets a fresh 12-byte nonce, and the row it belongs to (its
 * {@code context}, e.g. the endpoint id) is bound in as associated data, so a ciphertext copied
 * into another row does not decrypt.
 *
 * <p>Stored form: one version byte ({@value #VERSION}), the nonce, then ciphertext and tag.
 */
public final class SecretBox {

  static final byte VERSION = 1;
  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final SecretKeySpec key;

  /**
   * @param configuredKey any string with enough entropy (bin/run generates 32 random bytes in hex)
   */
  public SecretBox(String configuredKey) {
    if (configuredKey == null || configuredKey.isEmpty()) {
      throw new IllegalArgumentException("the secret key must not be empty");
    }
    this.key = new SecretKeySpec(sha256(configuredKey.getBytes(StandardCharsets.UTF_8)), "AES");
  }

  public byte[] seal(String plaintext, String context) {
    byte[] nonce = new byte[NONCE_BYTES];
    RANDOM.nextBytes(nonce);
    try {
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
      cipher.updateAAD(context.getBytes(StandardCharsets.UTF_8));
      byte[] sealed = cipher.doFinal(plaintext.getBytes(StandardCharsets.UTF_8));
      return ByteBuffer.allocate(1 + NONCE_BYTES + sealed.length)
          .put(VERSION)
          .put(nonce)
          .put(sealed)
          .array();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is part of every Java runtime", e);
    }
  }

  /**
   * @throws IllegalStateException when the value was sealed under another key or context, or was
   *     altered: the configured key changed, or the database was tampered with
   */
  public String open(byte[] sealed, String context) {
    if (sealed == null || sealed.length < 1 + NONCE_BYTES + TAG_BITS / 8 || sealed[0] != VERSION) {
      throw new IllegalStateException("not a sealed secret of version " + VERSION);
    }
    try {
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, sealed, 1, NONCE_BYTES));
      cipher.updateAAD(context.getBytes(StandardCharsets.UTF_8));
      byte[] plain = cipher.doFinal(sealed, 1 + NONCE_BYTES, sealed.length - 1 - NONCE_BYTES);
      return new String(plain, StandardCharsets.UTF_8);
    } catch (javax.crypto.AEADBadTagException e) {
      // Never include the value or the key: only that it did not open.
      throw new IllegalStateException(
          "a stored signing secret does not decrypt: WEBHOOK_SECRET_KEY changed or the row was"
              + " altered");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is part of every Java runtime", e);
    }
  }

  private static byte[] sha256(byte[] value) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(value);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
