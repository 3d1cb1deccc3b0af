package ph.payments.testkit;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns fixture noise down on the consumer's logging backend.
 *
 * <p>The testkit must not ship a logging backend (every service brings logback), so it cannot call
 * logback directly. It reaches logback through reflection when logback is the SLF4J backend and
 * does nothing otherwise. A logger that already has an explicit level (for instance from the
 * consumer's {@code logback-test.xml}) is left alone, so anyone debugging the broker can still turn
 * it up. {@code -DTEST_KAFKA_QUIET=false} switches this off entirely.
 */
final class QuietLogging {

  private static final Logger LOG = LoggerFactory.getLogger(QuietLogging.class);
  private static final String LOGBACK_CONTEXT = "ch.qos.logback.classic.LoggerContext";
  private static final Runnable NOTHING_TO_UNDO = () -> {};

  private QuietLogging() {}

  /** {@link #setUnlessConfigured} with WARN, for good. */
  static void warnUnlessConfigured(String... loggerNames) {
    setUnlessConfigured("WARN", loggerNames);
  }

  /**
   * Sets {@code level} (a logback level name such as WARN or OFF) on each named logger that has no
   * level of its own, when logback is the backend.
   *
   * @return an action that gives those loggers back their inherited level
   */
  static Runnable setUnlessConfigured(String level, String... loggerNames) {
    if ("false".equalsIgnoreCase(Settings.get("TEST_KAFKA_QUIET"))) {
      return NOTHING_TO_UNDO;
    }
    Object factory = LoggerFactory.getILoggerFactory();
    if (!LOGBACK_CONTEXT.equals(factory.getClass().getName())) {
      return NOTHING_TO_UNDO;
    }
    try {
      // Load logback's Level through the loader that loaded logback, not ours.
      ClassLoader loader = factory.getClass().getClassLoader();
      Class<?> levelType = Class.forName("ch.qos.logback.classic.Level", false, loader);
      Object newLevel = levelType.getMethod("toLevel", String.class).invoke(null, level);
      Method getLogger = factory.getClass().getMethod("getLogger", String.class);
      List<Object> changed = new ArrayList<>();
      for (String name : loggerNames) {
        Object logger = getLogger.invoke(factory, name);
        if (logger.getClass().getMethod("getLevel").invoke(logger) == null) {
          logger.getClass().getMethod("setLevel", levelType).invoke(logger, newLevel);
          changed.add(logger);
        }
      }
      return () -> {
        for (Object logger : changed) {
          try {
            logger.getClass().getMethod("setLevel", levelType).invoke(logger, (Object) null);
          } catch (ReflectiveOperationException e) {
            LOG.debug("Could not restore the level of {}", logger, e);
          }
        }
      };
    } catch (ReflectiveOperationException | RuntimeException e) {
      // Noise is a nuisance, not a failure: never let this break a test run.
      LOG.debug("Could not adjust logback levels", e);
      return NOTHING_TO_UNDO;
    }
  }
}
