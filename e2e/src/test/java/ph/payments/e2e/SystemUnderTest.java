package ph.payments.e2e;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The whole system as separate processes, started by {@code bin/run --no-build} with its own ports,
 * databases and run folder, so it never collides with a developer's running system.
 */
final class SystemUnderTest implements AutoCloseable {

  private static final List<String> DATABASES =
      List.of("gateway", "payments", "ledger", "webhooks");

  final Path repo;
  final Path runDir;
  final String dbPrefix;
  final String adminToken;
  final int gatewayPort;
  final Map<String, Integer> internalPorts;
  final Duration startUp;
  private final Process process;
  private final Path output;

  private SystemUnderTest(
      Path repo,
      Path runDir,
      String dbPrefix,
      String adminToken,
      int gatewayPort,
      Map<String, Integer> internalPorts,
      Process process,
      Path output,
      Duration startUp) {
    this.repo = repo;
    this.runDir = runDir;
    this.dbPrefix = dbPrefix;
    this.adminToken = adminToken;
    this.gatewayPort = gatewayPort;
    this.internalPorts = internalPorts;
    this.process = process;
    this.output = output;
    this.startUp = startUp;
  }

  static SystemUnderTest start(String name) throws Exception {
    return start(name, Map.of());
  }

  /**
   * As {@link #start(String)}, with extra environment for bin/run and the services (for example a
   * short {@code WEBHOOK_RETRY_SCHEDULE}); it is applied last, so it wins.
   */
  static SystemUnderTest start(String name, Map<String, String> environment) throws Exception {
    Path repo = Path.of("").toAbsolutePath().getParent();
    Path runDir = repo.resolve("e2e/target/run-" + name);
    Files.createDirectories(runDir);
    String suffix = HexFormat.of().formatHex(random(4));
    String dbPrefix = "e2e_" + name + "_" + suffix;
    String adminToken = "adm_" + HexFormat.of().formatHex(random(16));
    int gateway = freePort();
    Map<String, Integer> internal =
        Map.of("payments", freePort(), "ledger", freePort(), "webhook", freePort());

    ProcessBuilder builder = new ProcessBuilder("bash", "bin/run", "--no-build");
    builder.directory(repo.toFile());
    Map<String, String> env = builder.environment();
    env.put("RUN_DIR", runDir.toString());
    env.put("DB_PREFIX", dbPrefix);
    env.put("GATEWAY_PORT", Integer.toString(gateway));
    env.put("PAYMENTS_PORT", Integer.toString(internal.get("payments")));
    env.put("LEDGER_PORT", Integer.toString(internal.get("ledger")));
    env.put("WEBHOOK_PORT", Integer.toString(internal.get("webhook")));
    env.put("KAFKA_PORT", Integer.toString(freePort()));
    env.put("KAFKA_CONTROLLER_PORT", Integer.toString(freePort()));
    env.put("PAYMENTS_ADMIN_TOKEN", adminToken);
    env.putAll(environment);
    Path output = runDir.resolve("run-output.log");
    builder.redirectErrorStream(true);
    builder.redirectOutput(output.toFile());

    long started = System.nanoTime();
    Process process = builder.start();
    SystemUnderTest system =
        new SystemUnderTest(
            repo, runDir, dbPrefix, adminToken, gateway, internal, process, output, null);
    long deadline = started + TimeUnit.SECONDS.toNanos(150);
    while (!system.outputHas("READY")) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        String tail = system.outputTail();
        system.close();
        throw new IllegalStateException("bin/run did not get ready:\n" + tail);
      }
      Thread.sleep(200);
    }
    Duration startUp = Duration.ofNanos(System.nanoTime() - started);
    return new SystemUnderTest(
        repo, runDir, dbPrefix, adminToken, gateway, internal, process, output, startUp);
  }

  String gatewayUrl() {
    return "http://127.0.0.1:" + gatewayPort;
  }

  /** Stops bin/run as Ctrl-C would, waits for it, and drops the run's databases. */
  @Override
  public void close() throws Exception {
    stop();
    dropDatabases();
  }

  /** SIGTERM to bin/run; returns its exit code. */
  int stop() throws InterruptedException {
    if (process.isAlive()) {
      process.destroy();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor();
      }
    }
    return process.exitValue();
  }

  boolean anyPortOpen() {
    if (isOpen(gatewayPort)) {
      return true;
    }
    return internalPorts.values().stream().anyMatch(SystemUnderTest::isOpen);
  }

  String outputTail() throws IOException {
    List<String> lines = Files.readAllLines(output, StandardCharsets.UTF_8);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
  }

  private boolean outputHas(String line) throws IOException {
    return Files.exists(output)
        && Files.readAllLines(output, StandardCharsets.UTF_8).stream()
            .anyMatch(l -> l.strip().equals(line));
  }

  /** The PostgreSQL server bin/run uses, as its maintenance database {@code postgres}. */
  static Connection postgresServer() throws SQLException {
    String host = System.getenv().getOrDefault("PGHOST", "127.0.0.1");
    String port = System.getenv().getOrDefault("PGPORT", "5432");
    String user = System.getenv().getOrDefault("PGUSER", "postgres");
    return DriverManager.getConnection(
        "jdbc:postgresql://" + host + ":" + port + "/postgres?user=" + user);
  }

  private void dropDatabases() throws SQLException {
    try (Connection connection = postgresServer();
        Statement statement = connection.createStatement()) {
      for (String database : DATABASES) {
        statement.execute("DROP DATABASE IF EXISTS " + dbPrefix + "_" + database + " WITH (FORCE)");
      }
    }
  }

  private static boolean isOpen(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static byte[] random(int bytes) {
    byte[] value = new byte[bytes];
    new SecureRandom().nextBytes(value);
    return value;
  }
}
