package ph.payments.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

/**
 * The stages of a load, for the CPU they cost ({@code bench_cpu_report} in {@code bench/lib.sh}):
 * with {@code BENCH_STAGES} naming a file, each stage appends a line {@code <start ms> <end ms>
 * <events> <name>} (epoch milliseconds, the window from the first event made to the last one
 * delivered). Without it, nothing is written.
 */
final class Stages {

  static void mark(String name, long startMillis, long endMillis, int events) {
    String file = System.getenv("BENCH_STAGES");
    if (file == null || file.isBlank()) {
      return;
    }
    String line = String.format(Locale.ROOT, "%d %d %d %s%n", startMillis, endMillis, events, name);
    try {
      Files.writeString(
          Path.of(file),
          line,
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      System.err.println("could not record stage " + name + ": " + e);
    }
  }

  private Stages() {}
}
