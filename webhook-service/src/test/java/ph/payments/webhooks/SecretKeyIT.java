package ph.payments.webhooks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.context.ApplicationContext;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import ph.payments.platform.keys.RequiredKeys;
import ph.payments.testkit.FreshDatabase;
import ph.payments.webhooks.signing.SecretBox;
import ph.payments.webhooks.support.WebhookServiceTest;

/**
 * webhook-service's application context with and without {@code WEBHOOK_SECRET_KEY} (issue 14, item
 * 6): without a real key it refuses to start unless development keys are explicitly allowed, so
 * signing secrets are never sealed under the key published in the source by accident.
 */
@ExtendWith(FreshDatabase.class)
class SecretKeyIT {

  private static final String REAL_KEY = "mZ3q8Xv1Yb7Tn2Kc5Rw0Hs4Lp6Dg9Fj1Ae3Uo5Ii7Oy=";

  @Test
  void withoutTheKeyAndWithoutTheDevelopmentSettingTheServiceDoesNotStart() {
    Throwable failure =
        assertThrows(Throwable.class, () -> ApplicationContext.run(properties("", false)).close());
    String message = missingKey(failure).getMessage();
    assertTrue(message.startsWith("WEBHOOK_SECRET_KEY is not set"), message);
    assertTrue(message.contains("ALLOW_DEVELOPMENT_KEYS=true"), message);
  }

  @Test
  void aShortKeyOrThePublicDevelopmentKeyIsRefusedToo() {
    for (String weak : new String[] {"webhook-secret", WebhooksFactory.DEVELOPMENT_KEY}) {
      Throwable failure =
          assertThrows(
              Throwable.class, () -> ApplicationContext.run(properties(weak, false)).close());
      assertTrue(
          missingKey(failure).getMessage().startsWith("WEBHOOK_SECRET_KEY"), failure.toString());
    }
  }

  @Test
  void withTheDevelopmentSettingItStartsOnThePublicKey() {
    try (ApplicationContext context = ApplicationContext.run(properties("", true))) {
      SecretBox box = context.getBean(SecretBox.class);
      byte[] sealed = box.seal("whsec_x", "we_1");
      assertEquals("whsec_x", new SecretBox(WebhooksFactory.DEVELOPMENT_KEY).open(sealed, "we_1"));
    }
  }

  @Test
  void withARealKeyItStartsWithoutTheDevelopmentSetting() {
    try (ApplicationContext context = ApplicationContext.run(properties(REAL_KEY, false))) {
      byte[] sealed = context.getBean(SecretBox.class).seal("whsec_x", "we_1");
      assertEquals("whsec_x", new SecretBox(REAL_KEY).open(sealed, "we_1"));
      assertThrows(
          IllegalStateException.class,
          () -> new SecretBox(WebhooksFactory.DEVELOPMENT_KEY).open(sealed, "we_1"));
    }
  }

  private Map<String, Object> properties(String key, boolean allowDevelopmentKeys) {
    Map<String, Object> properties =
        new HashMap<>(WebhookServiceTest.properties(SecretKeyIT.class, Map.of()));
    // Set explicitly, so neither the environment nor a test configuration decides.
    properties.put("webhooks.secret-key", key);
    // The service's other required key is present, so only the one under test decides.
    properties.put("security.reply-sealing-key", WebhookServiceTest.REPLY_SEALING_KEY);
    properties.put(RequiredKeys.ALLOW_PROPERTY, Boolean.toString(allowDevelopmentKeys));
    return properties;
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
