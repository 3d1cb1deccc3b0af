package ph.payments.bench;

import java.util.Arrays;

/** Latencies in nanoseconds, reported in milliseconds at percentiles (nearest rank). */
final class Latencies {

  private long[] values = new long[1024];
  private int count;

  synchronized void add(long nanos) {
    if (count == values.length) {
      values = Arrays.copyOf(values, count * 2);
    }
    values[count++] = nanos;
  }

  synchronized int count() {
    return count;
  }

  /** The {@code p}th percentile in milliseconds, or NaN when there are no values. */
  synchronized double percentileMillis(double p) {
    if (count == 0) {
      return Double.NaN;
    }
    long[] sorted = Arrays.copyOf(values, count);
    Arrays.sort(sorted);
    int index = (int) Math.ceil(p / 100.0 * count) - 1;
    return sorted[Math.max(0, Math.min(count - 1, index))] / 1_000_000.0;
  }

  double p50() {
    return percentileMillis(50);
  }

  double p90() {
    return percentileMillis(90);
  }

  double p99() {
    return percentileMillis(99);
  }

  double max() {
    return percentileMillis(100);
  }
}
