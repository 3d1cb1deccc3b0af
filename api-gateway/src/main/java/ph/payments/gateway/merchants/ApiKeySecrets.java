package ph.payments.gateway.merchants;

import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import ph.payments.platform.keys.RequiredKeys;

/**
 * Makes API key secrets and their keyed hashes. A secret is {@code sk_test_} or {@code sk_live_}
 * followed by 43 base62 characters (256 random bits). Only HMAC-SHA256(API_KEY_HASH_SECRET, secret)
 * is stored: a leaked database alone neither reveals nor lets anyone test a key.
 *
 * <p>Created with the application context ({@link Context}), so a missing {@code
 * API_KEY_HASH_SECRET} stops the gateway at start-up ({@link RequiredKeys}) rather than at the
 * first request that needs it.
 */
@Context
public class ApiKeySecrets {

  private static final char[] BASE62 =
      "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".toCharArray();
  private static final int SECRET_LENGTH = 43; // 43 × log2(62) ≈ 256 bits

  /** Public (it is in the source): used only with {@code ALLOW_DEVELOPMENT_KEYS=true}. */
  static final String DEVELOPMENT_KEY = "development-only-api-key-hash-secret";

  private final SecureRandom random = new SecureRandom();
  private final SecretKeySpec hashKey;

  public ApiKeySecrets(
      @Nullable @Value("${gateway.api-key-hash-secret:}") String hashSecret, RequiredKeys keys) {
    String key = keys.require("API_KEY_HASH_SECRET", hashSecret, DEVELOPMENT_KEY);
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
