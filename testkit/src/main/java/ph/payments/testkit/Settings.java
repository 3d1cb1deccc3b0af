package ph.payments.testkit;

/**
 * Reads a fixture setting from a system property first, then from the environment.
 *
 * <p>Both are accepted under the same name so that CI can export an environment variable while a
 * developer can pass {@code -DTEST_PG_PORT=5433} to one Maven run without touching the shell.
 */
final class Settings {

  private Settings() {}

  /** The value, or {@code null} when the setting is absent or blank. */
  static String get(String name) {
    String value = System.getProperty(name);
    if (value == null || value.isBlank()) {
      value = System.getenv(name);
    }
    return value == null || value.isBlank() ? null : value.trim();
  }

  static String get(String name, String fallback) {
    String value = get(name);
    return value == null ? fallback : value;
  }
}
