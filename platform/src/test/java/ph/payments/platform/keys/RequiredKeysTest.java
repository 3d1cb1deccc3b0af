package ph.payments.platform.keys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RequiredKeysTest {

  private static final String DEVELOPMENT = "development-only-some-key-of-the-source";
  private static final String REAL =
      "3f1c0a9e5b7d2468ace13579bdf02468ace13579bdf02468ace13579bdf0246";

  private final RequiredKeys production = new RequiredKeys(false);
  private final RequiredKeys development = new RequiredKeys(true);

  @Test
  void withoutTheDevelopmentSettingAMissingKeyStopsTheServiceNamingTheVariable() {
    for (String missing : new String[] {null, "", "   "}) {
      RequiredKeys.MissingKeyException e =
          assertThrows(
              RequiredKeys.MissingKeyException.class,
              () -> production.require("SOME_SECRET", missing, DEVELOPMENT));
      assertTrue(e.getMessage().startsWith("SOME_SECRET is not set"), e.getMessage());
      assertTrue(e.getMessage().contains("ALLOW_DEVELOPMENT_KEYS"), e.getMessage());
    }
  }

  @Test
  void withoutTheDevelopmentSettingShortKeysAndTheDevelopmentKeyItselfAreRefused() {
    String shortKey = "x".repeat(RequiredKeys.MIN_BYTES - 1);
    RequiredKeys.MissingKeyException tooShort =
        assertThrows(
            RequiredKeys.MissingKeyException.class,
            () -> production.require("SOME_SECRET", shortKey, DEVELOPMENT));
    assertTrue(tooShort.getMessage().contains("too short (31 bytes"), tooShort.getMessage());
    // Bytes, not characters: 11 three-byte characters are 33 bytes.
    assertEquals("€".repeat(11), production.require("SOME_SECRET", "€".repeat(11), DEVELOPMENT));
    RequiredKeys.MissingKeyException known =
        assertThrows(
            RequiredKeys.MissingKeyException.class,
            () -> production.require("SOME_SECRET", DEVELOPMENT, DEVELOPMENT));
    assertTrue(known.getMessage().contains("public development key"), known.getMessage());
  }

  @Test
  void aRealKeyIsUsedEitherWay() {
    assertEquals(REAL, production.require("SOME_SECRET", REAL, DEVELOPMENT));
    assertEquals(REAL, development.require("SOME_SECRET", REAL, DEVELOPMENT));
    String exactlyLongEnough = "k".repeat(RequiredKeys.MIN_BYTES);
    assertEquals(exactlyLongEnough, production.require("X", exactlyLongEnough, DEVELOPMENT));
  }

  @Test
  void withTheDevelopmentSettingAMissingKeyFallsBackAndAShortOnePasses() {
    assertEquals(DEVELOPMENT, development.require("SOME_SECRET", null, DEVELOPMENT));
    assertEquals(DEVELOPMENT, development.require("SOME_SECRET", " ", DEVELOPMENT));
    assertEquals("short", development.require("SOME_SECRET", "short", DEVELOPMENT));
  }
}
