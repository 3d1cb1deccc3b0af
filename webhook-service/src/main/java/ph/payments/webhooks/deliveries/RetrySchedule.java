package ph.payments.webhooks.deliveries;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.DoubleSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * When a failed delivery is tried again (SPEC part 6, "Retry rules"): after the first attempt
 * fails, wait the first step; after the first retry fails, the second; and so on. When the last
 * retry has failed too, the delivery is failed: with the spec's six steps that is seven attempts in
 * all, the last about 32.6 hours after the first.
 *
 * <p>Each wait is varied by a random factor in {@code [1 − jitter, 1 + jitter]}, so deliveries that
 * failed together (a receiver that was down) do not all come back in the same second.
 */
public final class RetrySchedule {

  private static final Pattern STEP = Pattern.compile("(\\d+)(ms|s|m|h|d)");

  private final List<Duration> steps;

  public RetrySchedule(List<Duration> steps) {
    if (steps.isEmpty()) {
      throw new IllegalArgumentException("a retry schedule has at least one step");
    }
    for (Duration step : steps) {
      if (step.isNegative() || step.isZero()) {
        throw new IllegalArgumentException("retry steps must be positive: " + steps);
      }
    }
    this.steps = List.copyOf(steps);
  }

  /**
   * Parses {@code 1m,5m,30m,2h,6h,24h}: comma-separated whole numbers with a unit of {@code ms},
   * {@code s}, {@code m}, {@code h} or {@code d}.
   *
   * @throws IllegalArgumentException naming the step that is not understood
   */
  public static RetrySchedule parse(String text) {
    List<Duration> steps = new ArrayList<>();
    for (String part : text.split(",")) {
      Matcher step = STEP.matcher(part.trim());
      if (!step.matches()) {
        throw new IllegalArgumentException(
            "WEBHOOK_RETRY_SCHEDULE: cannot read '" + part.trim() + "' (use e.g. 1m,5m,30m,2h)");
      }
      long amount = Long.parseLong(step.group(1));
      steps.add(
          switch (step.group(2)) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            default -> Duration.ofDays(amount);
          });
    }
    return new RetrySchedule(steps);
  }

  /** How many retries follow the first attempt. */
  public int retries() {
    return steps.size();
  }

  public List<Duration> steps() {
    return steps;
  }

  /**
   * The wait before the next attempt, or empty when the delivery has used every retry.
   *
   * @param retriesUsed retries already made in this round (0 after the first attempt failed)
   * @param jitter largest relative variation, e.g. 0.1
   * @param random uniform in [0, 1)
   */
  public Optional<Duration> next(int retriesUsed, double jitter, DoubleSupplier random) {
    if (retriesUsed < 0) {
      throw new IllegalArgumentException("retriesUsed must not be negative");
    }
    if (retriesUsed >= steps.size()) {
      return Optional.empty();
    }
    Duration step = steps.get(retriesUsed);
    double factor = 1 + jitter * (2 * random.getAsDouble() - 1);
    return Optional.of(Duration.ofNanos(Math.round(step.toNanos() * factor)));
  }

  /** The longest step; a receiver's Retry-After is honoured up to this. */
  public Duration longest() {
    return steps.stream().max(Duration::compareTo).orElseThrow();
  }

  @Override
  public String toString() {
    return steps.toString();
  }
}
