package ph.payments.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class QuietLoggingTest {

  private final LoggerContext logback = (LoggerContext) LoggerFactory.getILoggerFactory();

  @Test
  void quietensLoggersWithoutALevelOfTheirOwn() {
    Logger chatty = logback.getLogger("ph.payments.testkit.sample.chatty");
    assertNull(chatty.getLevel());

    QuietLogging.warnUnlessConfigured("ph.payments.testkit.sample.chatty");

    assertEquals(Level.WARN, chatty.getLevel());
    assertEquals(
        Level.WARN,
        logback.getLogger("ph.payments.testkit.sample.chatty.child").getEffectiveLevel());
  }

  @Test
  void leavesAnExplicitLevelAlone() {
    Logger debugging = logback.getLogger("ph.payments.testkit.sample.debugging");
    debugging.setLevel(Level.DEBUG);

    QuietLogging.warnUnlessConfigured("ph.payments.testkit.sample.debugging");

    assertEquals(Level.DEBUG, debugging.getLevel());
  }

  @Test
  void undoesATemporarySilence() {
    Logger probe = logback.getLogger("ph.payments.testkit.sample.probe");

    Runnable undo = QuietLogging.setUnlessConfigured("OFF", "ph.payments.testkit.sample.probe");
    assertEquals(Level.OFF, probe.getLevel());
    undo.run();

    assertNull(probe.getLevel());
  }
}
