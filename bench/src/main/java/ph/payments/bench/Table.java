package ph.payments.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * A Markdown report: tables and short paragraphs. Printed, and written to the file named by {@code
 * BENCH_OUTPUT} when set (the run-* command puts it into docs/benchmarks.md).
 */
final class Table {

  private final StringBuilder text = new StringBuilder();

  /** Starts a table with these column headings. */
  Table header(String... columns) {
    if (!text.isEmpty() && text.charAt(text.length() - 1) != '\n') {
      text.append('\n');
    }
    text.append("| ").append(String.join(" | ", columns)).append(" |\n");
    text.append("|").append("---|".repeat(columns.length)).append('\n');
    return this;
  }

  Table row(Object... cells) {
    text.append('|');
    for (Object cell : cells) {
      text.append(' ').append(format(cell)).append(" |");
    }
    text.append('\n');
    return this;
  }

  /** A paragraph after the table (a blank line separates it). */
  Table note(String paragraph) {
    text.append('\n').append(paragraph).append('\n');
    return this;
  }

  /** A blank line, then the next table or note. */
  Table gap() {
    text.append('\n');
    return this;
  }

  static String format(Object cell) {
    if (cell instanceof Double d) {
      if (d.isNaN()) {
        return "–";
      }
      return d >= 100
          ? String.format(Locale.ROOT, "%.0f", d)
          : String.format(Locale.ROOT, "%.1f", d);
    }
    return String.valueOf(cell);
  }

  void print() throws IOException {
    System.out.print(text);
    String output = System.getenv("BENCH_OUTPUT");
    if (output != null) {
      Files.writeString(Path.of(output), text.toString());
    }
  }
}
