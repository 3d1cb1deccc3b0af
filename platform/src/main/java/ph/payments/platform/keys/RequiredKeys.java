package ph.payments.platform.keys;

import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one rule for every key that protects stored data or signatures (API key hashes, the webhook
 * secret box, and any key added later): a service runs with a real key, or not at all.
 *
 * <p>A real key is configured and at least {@value #MIN_BYTES} bytes long (what {@code bin/run} and
 * {@code deploy/generate-env.sh} generate). Only when the operator explicitly allows development
 * keys ({@code ALLOW_DEVELOPMENT_KEYS=true}, property {@value #ALLOW_PROPERTY}) does a missing key
 * fall back to the public development key in the source, and a short key pass with a warning.
 * Without that setting a missing, short or known development key stops the service at start-up:
 * before, a forgotten variable in production silently meant a key anyone can read on GitHub (issue
 * 14, item 6).
 */
public final class RequiredKeys {

  /** The property (environment variable {@code ALLOW_DEVELOPMENT_KEYS}); false by default. */
  public static final String ALLOW_PROPERTY = "security.allow-development-keys";

  /** The shortest key accepted without the development setting: 256 bits of raw length. */
  public static final int MIN_BYTES = 32;

  private static final Logger log = LoggerFactory.getLogger(RequiredKeys.class);

  private final boolean allowDevelopmentKeys;

  /**
   * @param allowDevelopmentKeys {@code ALLOW_DEVELOPMENT_KEYS}: local development and tests only
   */
  public RequiredKeys(boolean allowDevelopmentKeys) {
    this.allowDevelopmentKeys = allowDevelopmentKeys;
  }

  public boolean developmentKeysAllowed() {
    return allowDevelopmentKeys;
  }

  /**
   * The key to use for {@code variable}.
   *
   * @param variable the environment variable's name, for the messages (e.g. {@code
   *     API_KEY_HASH_SECRET})
   * @param configured its value, null or blank when unset
   * @param developmentKey the public fallback, used only when development keys are allowed
   * @throws MissingKeyException when the key is missing, too short or the development key itself,
   *     and development keys are not allowed
   */
  public String require(String variable, String configured, String developmentKey) {
    if (configured == null || configured.isBlank()) {
      if (!allowDevelopmentKeys) {
        throw new MissingKeyException(
            variable
                + " is not set. Set it to at least "
                + MIN_BYTES
                + " random bytes (deploy/generate-env.sh makes one), or set"
                + " ALLOW_DEVELOPMENT_KEYS=true to use a public development key (local"
                + " development and tests only; bin/run does).");
      }
      log.warn(
          "{} is not set: using the PUBLIC development key (ALLOW_DEVELOPMENT_KEYS=true); never"
              + " do this with real data",
          variable);
      return developmentKey;
    }
    boolean known = configured.equals(developmentKey);
    int length = configured.getBytes(StandardCharsets.UTF_8).length;
    if (known || length < MIN_BYTES) {
      String why =
          known
              ? "is a public development key"
              : "is too short (" + length + " bytes, at least " + MIN_BYTES + " needed)";
      if (!allowDevelopmentKeys) {
        throw new MissingKeyException(
            variable
                + " "
                + why
                + ". Set it to at least "
                + MIN_BYTES
                + " random bytes (deploy/generate-env.sh makes one), or set"
                + " ALLOW_DEVELOPMENT_KEYS=true (local development and tests only).");
      }
      log.warn("{} {}: accepted only because ALLOW_DEVELOPMENT_KEYS=true", variable, why);
    }
    return configured;
  }

  /** A key the service cannot run without is missing or unusable. */
  public static final class MissingKeyException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public MissingKeyException(String message) {
      super(message);
    }
  }
}
