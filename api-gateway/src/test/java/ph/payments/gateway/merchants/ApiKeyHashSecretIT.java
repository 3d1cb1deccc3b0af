package ph.payments.gateway.merchants;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.context.ApplicationContext;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.platform.keys.RequiredKeys;
import ph.payments.testkit.FreshDatabase;
import ph.payments.testkit.TestDatabase;
import ph.payments.testkit.TestKafka;

/**
 * The gateway's application context with and without {@code API_KEY_HASH_SECRET} (issue 14, item
 * 6): it refuses to start without a real key unless development keys are explicitly allowed, so a
 * forgotten variable can no longer mean every API key hashed under a key published in the source.
 */
@ExtendWith(FreshDatabase.class)
class ApiKeyHashSecretIT {

  private static final String REAL_KEY =
      "6b1f0c2e9a4d7f3b8e5a1c0d2f4b6a8c9e7d5b3a1f0e2c4d6b8a0c9e7f5d3b1a";

  @Test
  void withoutTheKeyAndWithoutTheDevelopmentSettingTheGatewayDoesNotStart() {
    Throwable failure =
        assertThrows(Throwable.class, () -> ApplicationContext.run(properties("", false)).close());
    String message = missingKey(failure).getMessage();
    assertTrue(message.startsWith("API_KEY_HASH_SECRET is not set"), message);
    assertTrue(message.contains("ALLOW_DEVELOPMENT_KEYS=true"), message);
  }

  @Test
  void aShortKeyOrThePublicDevelopmentKeyIsRefusedToo() {
    for (String weak : new String[] {"changeme", ApiKeySecrets.DEVELOPMENT_KEY}) {
      Throwable failure =
          assertThrows(
              Throwable.class, () -> ApplicationContext.run(properties(weak, false)).close());
      assertTrue(
          missingKey(failure).getMessage().startsWith("API_KEY_HASH_SECRET"), failure.toString());
    }
  }

  @Test
  void withTheDevelopmentSettingItStartsOnThePublicKey() {
    try (ApplicationContext context = ApplicationContext.run(properties("", true))) {
      byte[] hash = context.getBean(ApiKeySecrets.class).hash("sk_test_x");
      assertArrayEquals(hashUnder(ApiKeySecrets.DEVELOPMENT_KEY, "sk_test_x"), hash);
    }
  }

  @Test
  void withARealKeyItStartsWithoutTheDevelopmentSetting() {
    try (ApplicationContext context = ApplicationContext.run(properties(REAL_KEY, false))) {
      byte[] hash = context.getBean(ApiKeySecrets.class).hash("sk_test_x");
      assertArrayEquals(hashUnder(REAL_KEY, "sk_test_x"), hash);
      assertFalse(Arrays.equals(hashUnder(ApiKeySecrets.DEVELOPMENT_KEY, "sk_test_x"), hash));
    }
  }

  private Map<String, Object> properties(String key, boolean allowDevelopmentKeys) {
    TestDatabase database = TestDatabase.forClass(getClass());
    Map<String, Object> properties = new HashMap<>();
    properties.put("datasources.default.url", database.jdbcUrl());
    properties.put("datasources.default.username", database.user());
    properties.put("kafka.bootstrap.servers", TestKafka.bootstrapServers());
    properties.put("micronaut.server.port", "-1");
    // Set explicitly, so neither the environment nor application-test.yml decides.
    properties.put("gateway.api-key-hash-secret", key);
    // The gateway's other required key is present, so only the one under test decides.
    properties.put("security.reply-sealing-key", GatewayTest.REPLY_SEALING_KEY);
    properties.put(RequiredKeys.ALLOW_PROPERTY, Boolean.toString(allowDevelopmentKeys));
    return properties;
  }

  private static byte[] hashUnder(String key, String secret) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return mac.doFinal(secret.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static RequiredKeys.MissingKeyException missingKey(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof RequiredKeys.MissingKeyException missing) {
        return missing;
      }
    }
    throw new AssertionError("not a missing key: " + failure, failure);
  }
}
