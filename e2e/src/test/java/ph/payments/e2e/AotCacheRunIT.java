package ph.payments.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * bin/run's {@code AOT_CACHE} (Java 25+; docs/operations.md, "Start-up and warm-up"): a first run
 * records a cache for each JVM and writes it as it stops; the next run starts each JVM from its
 * cache and records nothing. Kafka and one service are enough to hold both kinds of JVM to it.
 */
class AotCacheRunIT {

  @Test
  void aFirstRunRecordsTheCachesAndTheNextStartsFromThem() throws Exception {
    Path caches = Path.of("target/aot-cache-run").toAbsolutePath();
    SystemUnderTest.deleteRecursively(caches);
    Map<String, String> environment =
        Map.of("AOT_CACHE", caches.toString(), "RUN_SERVICES", "ledger-service");

    try (SystemUnderTest first = SystemUnderTest.start("aotfirst", environment)) {
      assertTrue(printed(first, "AOT cache: kafka records one this run"), first.outputTail());
      assertTrue(
          printed(first, "AOT cache: ledger-service records one this run"), first.outputTail());
      assertTrue(first.healthy("ledger-service"));
      assertEquals(0, first.stop(), first.outputTail());
      assertTrue(printed(first, "AOT cache written: " + caches + "/kafka-"), first.outputTail());
      assertTrue(
          printed(first, "AOT cache written: " + caches + "/ledger-service-"), first.outputTail());
    }
    List<String> written = files(caches);
    assertEquals(2, written.size(), written.toString());
    assertTrue(written.stream().allMatch(name -> name.endsWith(".aot")), written.toString());

    try (SystemUnderTest second = SystemUnderTest.start("aotsecond", environment)) {
      assertTrue(printed(second, "AOT cache: kafka starts from " + caches), second.outputTail());
      assertTrue(
          printed(second, "AOT cache: ledger-service starts from " + caches), second.outputTail());
      assertTrue(second.healthy("ledger-service"));
      assertEquals(0, second.stop(), second.outputTail());
      assertTrue(second.outputHas("Stopped."), second.outputTail());
      assertTrue(second.outputLines().stream().noneMatch(l -> l.contains("records one")));
    }
    assertEquals(written, files(caches), "the second run wrote no cache");
  }

  private static boolean printed(SystemUnderTest system, String start) throws IOException {
    return system.outputLines().stream().anyMatch(line -> line.startsWith(start));
  }

  private static List<String> files(Path folder) throws IOException {
    try (Stream<Path> files = Files.list(folder)) {
      return files.map(f -> f.getFileName().toString()).sorted().toList();
    }
  }
}
