package ph.payments.gateway.merchants;

import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes API key secrets and their keyed hashes. A secret is {@code sk_test_} or {@code sk_live_}
 * followed by 43 base62 characters (256 random bits). Only HMAC-SHA256(API_KEY_HASH_SECRET, secret)
 * is stored: a leaked database alone neither reveals nor lets anyone test a key.
 */
@Singleton
public class ApiKeySecrets {

  private static final Logger log = LoggerFactory.getLogger(ApiKeySecrets.class);
  private static final char[] BASE62 =
      "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".toCharArray();
  private static final int SECRET_LENGTH = 43; // 43 × log2(62) ≈ 256 bits
  private static final String DEVELOPMENT_KEY = "development-only-api-key-hash-secret";

  private final SecureRandom random = new SecureRandom();
  private final SecretKeySpec hashKey;

  public ApiKeySecrets(@Nullable @Value("${gateway.api-key-hash-secret:}") String hashSecret) {
    String key = hashSecret;
    if (key == null || key.isBlank()) {
      log.warn(
          "API_KEY_HASH_SECRET is not set: using the development default; set it in production");
      key = DEVELOPMENT_KEY;
    }
    this.hashKey = new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
  }

  /** A new secret for {@code environment} ({@code test} or {@code live}). */
  public String newSecret(String environment) {
    StringBuilder secret = new StringBuilder("sk_").append(environment).append('_');
    for (int i = 0; i < SECRET_LENGTH; i++) {
      secret.append(BASE62[random.nextInt(BASE62.length)]);
    }
    return secret.toString();
  }

  public byte[] hash(String secret) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(hashKey);
      return mac.doFinal(secret.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every JDK has HmacSHA256", e);
    }
  }

  /** The environment a secret's prefix names, or null when it is not a secret of ours. */
  public static String environmentOf(String secret) {
    if (secret.startsWith("sk_test_")) {
      return "test";
    }
    if (secret.startsWith("sk_live_")) {
      return "live";
    }
    return null;
  }
}
