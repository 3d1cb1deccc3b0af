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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The whole system as separate processes, started by {@code bin/run --no-build} with its own ports,
 * databases and run folder, so it never collides with a developer's running system.
 */
final class SystemUnderTest implements AutoCloseable {

  /** JVM flags of the services and Kafka of a system under test, unless the caller sets its own. */
  static final String TEST_JVM_OPTS = "-XX:TieredStopAtLevel=1";

  private static final List<String> DATABASES =
      List.of("gateway", "payments", "ledger", "webhooks");

  final Path repo;
  final Path runDir;
  final String dbPrefix;
  final String adminToken;
  final int gatewayPort;

  /**
   * Replica 1's port of each internal service: {@code payments}, {@code ledger}, {@code webhook}.
   */
  final Map<String, Integer> internalPorts;

  /**
   * The port of every process bin/run starts for a service, by its pid file's name: {@code
   * api-gateway}, {@code payments-service}, {@code payments-service-2} (replicas), ….
   */
  final Map<String, Integer> unitPorts;

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
      Map<String, Integer> unitPorts,
      Process process,
      Path output,
      Duration startUp) {
    this.repo = repo;
    this.runDir = runDir;
    this.dbPrefix = dbPrefix;
    this.adminToken = adminToken;
    this.gatewayPort = gatewayPort;
    this.internalPorts = internalPorts;
    this.unitPorts = unitPorts;
    this.process = process;
    this.output = output;
    this.startUp = startUp;
  }

  /**
   * Starts the system named {@code name} (run folder {@code e2e/target/run-<name>}, databases of
   * its own), with extra environment for bin/run and the services (for example a short {@code
   * WEBHOOK_RETRY_SCHEDULE}); it is applied last, so it wins. {@code PAYMENTS_REPLICAS}, {@code
   * LEDGER_REPLICAS} and {@code WEBHOOK_REPLICAS} start replicas: each service then gets a base
   * port whose replica ports (+ {@link #REPLICA_PORT_STEP} each) are free too.
   */
  static SystemUnderTest start(String name, Map<String, String> environment) throws Exception {
    Path repo = Path.of("").toAbsolutePath().getParent();
    Path runDir = repo.resolve("e2e/target/run-" + name);
    Files.createDirectories(runDir);
    // A fresh broker, as the databases are fresh: bin/run keeps Kafka's data in the run folder, and
    // a broker started on the last run's data reloads its consumer groups, the gateway's static
    // members included, with a new session each; the new gateway's reply recorder then waits for
    // them to time out (45 s in FaultInjectionE2EIT) before it gets its partitions.
    deleteRecursively(runDir.resolve("kafka"));
    String suffix = HexFormat.of().formatHex(random(4));
    String dbPrefix = "e2e_" + name + "_" + suffix;
    String adminToken = "adm_" + HexFormat.of().formatHex(random(16));
    Map<String, Integer> unitPorts = new LinkedHashMap<>();
    int gateway = freePorts(GATEWAY, 1, unitPorts);
    Map<String, Integer> internal =
        Map.of(
            "payments",
            freePorts("payments-service", replicas(environment, "PAYMENTS_REPLICAS"), unitPorts),
            "ledger",
            freePorts("ledger-service", replicas(environment, "LEDGER_REPLICAS"), unitPorts),
            "webhook",
            freePorts("webhook-service", replicas(environment, "WEBHOOK_REPLICAS"), unitPorts));

    ProcessBuilder builder = new ProcessBuilder("bash", "bin/run", "--no-build");
    builder.directory(repo.toFile());
    Map<String, String> env = builder.environment();
    env.put("RUN_DIR", runDir.toString());
    env.put("DB_PREFIX", dbPrefix);
    env.put("GATEWAY_PORT", Integer.toString(gateway));
    env.put("PAYMENTS_PORT", Integer.toString(internal.get("payments")));
    env.put("LEDGER_PORT", Integer.toString(internal.get("ledger")));
    env.put("WEBHOOK_PORT", Integer.toString(internal.get("webhook")));
    env.put("REPLICA_PORT_STEP", Integer.toString(REPLICA_PORT_STEP));
    List<Integer> taken = new java.util.ArrayList<>(unitPorts.values());
    int kafka = freePortBesides(taken);
    taken.add(kafka);
    env.put("KAFKA_PORT", Integer.toString(kafka));
    env.put("KAFKA_CONTROLLER_PORT", Integer.toString(freePortBesides(taken)));
    env.put("PAYMENTS_ADMIN_TOKEN", adminToken);
    // A system under test lives for minutes: C1 alone compiles at a fraction of C2's cost, which
    // on two cores shared by five JVMs is most of the difference (docs/benchmarks.md, "The JIT").
    env.putIfAbsent("JAVA_OPTS", TEST_JVM_OPTS);
    env.putIfAbsent("KAFKA_OPTS", TEST_JVM_OPTS);
    // Several systems start at once beside the other modules' tests on two cores: a start that
    // takes
    // bin/run's interactive 90 s (seen: Kafka 45 s, a service still migrating at 90 s) is slow, not
    // broken, so the tests give it longer. Below the deadline here, so bin/run's own message wins.
    env.putIfAbsent("KAFKA_START_TIMEOUT_SECONDS", "150");
    env.putIfAbsent("HEALTH_TIMEOUT_SECONDS", "180");
    env.putAll(environment);
    Path output = runDir.resolve("run-output.log");
    builder.redirectErrorStream(true);
    builder.redirectOutput(output.toFile());

    long started = System.nanoTime();
    Process process = builder.start();
    SystemUnderTest system =
        new SystemUnderTest(
            repo,
            runDir,
            dbPrefix,
            adminToken,
            gateway,
            internal,
            unitPorts,
            process,
            output,
            null);
    long deadline = started + TimeUnit.SECONDS.toNanos(420); // beyond bin/run's own limits
    while (!system.outputHas("READY")) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        String tail = system.outputTail();
        system.close();
        throw new IllegalStateException("bin/run did not get ready:\n" + tail);
      }
      Thread.sleep(200);
    }
    return system.ready(Duration.ofNanos(System.nanoTime() - started));
  }

  /** This system once ready, with its start-up time. */
  private SystemUnderTest ready(Duration startUp) {
    return new SystemUnderTest(
        repo,
        runDir,
        dbPrefix,
        adminToken,
        gatewayPort,
        internalPorts,
        unitPorts,
        process,
        output,
        startUp);
  }

  String gatewayUrl() {
    return "http://127.0.0.1:" + gatewayPort;
  }

  /** The run's broker, as bin/run advertises it in the server.properties it wrote. */
  String kafkaBootstrapServers() throws IOException {
    for (String line : Files.readAllLines(runDir.resolve("kafka/server.properties"))) {
      if (line.startsWith("advertised.listeners=")) {
        String listener = line.substring(line.indexOf('=') + 1).split(",")[0];
        return listener.substring(listener.indexOf("://") + 3);
      }
    }
    throw new IllegalStateException("no advertised.listeners in the run's server.properties");
  }

  /** Connections to the run's four databases ({@code gateway}, {@code payments}, …). */
  Connection database(String name) throws SQLException {
    String host = System.getenv().getOrDefault("PGHOST", "127.0.0.1");
    String port = System.getenv().getOrDefault("PGPORT", "5432");
    String user = System.getenv().getOrDefault("PGUSER", "postgres");
    return DriverManager.getConnection(
        "jdbc:postgresql://" + host + ":" + port + "/" + dbPrefix + "_" + name + "?user=" + user);
  }

  static final List<String> DATABASE_NAMES = DATABASES;

  /** Stops bin/run as Ctrl-C would, waits for it, and drops the run's databases. */
  @Override
  public void close() throws Exception {
    stop();
    dropDatabases();
  }

  /** SIGTERM to bin/run; returns bin/run's exit code. */
  int stop() throws Exception {
    if (process.isAlive()) {
      process.destroy();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor();
      }
    }
    return process.exitValue();
  }

  /** The components bin/run supervises, by the names of their pid files in {@code RUN_DIR/pids}. */
  static final List<String> SERVICES =
      List.of("api-gateway", "payments-service", "ledger-service", "webhook-service");

  /**
   * bin/run's {@code REPLICA_PORT_STEP}: replica i listens on the service's port + step × (i − 1).
   */
  static final int REPLICA_PORT_STEP = 100;

  /**
   * Every service process bin/run runs, by its pid file's name: the {@link #SERVICES}, and with
   * replicas {@code payments-service-2} and so on.
   */
  List<String> units() {
    return List.copyOf(unitPorts.keySet());
  }

  /** The base URL of a service process ({@link #units()}). */
  String url(String unit) {
    Integer port = unitPorts.get(unit);
    if (port == null) {
      throw new IllegalArgumentException(unit + " is not one of " + unitPorts.keySet());
    }
    return "http://127.0.0.1:" + port;
  }

  private static final String GATEWAY = "api-gateway";

  static final String KAFKA = "kafka";

  /** The pid bin/run recorded for a component ({@link #KAFKA} or one of {@link #SERVICES}). */
  long pid(String component) throws IOException {
    Path file = runDir.resolve("pids/" + component + ".pid");
    String text = Files.exists(file) ? Files.readString(file).strip() : "";
    return text.isEmpty() ? -1 : Long.parseLong(text);
  }

  /**
   * {@code kill -9} of one component, then waits until bin/run has started it again and it is back:
   * a service answers 200 on {@code /health} (database and Kafka up), or, for Kafka, every service
   * does. Returns the time from the kill until then.
   */
  Duration killAndAwaitRestart(String component) throws Exception {
    long started = System.nanoTime();
    return awaitRestart(component, kill(component), started);
  }

  /** {@code kill -9} of one component ({@link #KAFKA} or one of {@link #units()}); its pid. */
  long kill(String component) throws IOException {
    long killed = pid(component);
    ProcessHandle.of(killed)
        .orElseThrow(() -> new IllegalStateException(component + " is not running"))
        .destroyForcibly(); // SIGKILL
    return killed;
  }

  /**
   * Waits until bin/run has started {@code component} again in place of pid {@code killed} and it
   * is back (see {@link #killAndAwaitRestart}); returns the time since {@code killedAt} ({@link
   * System#nanoTime()}).
   */
  Duration awaitRestart(String component, long killed, long killedAt) throws Exception {
    long deadline = killedAt + TimeUnit.SECONDS.toNanos(240);
    long restarted;
    while ((restarted = pid(component)) == killed
        || restarted < 0
        || ProcessHandle.of(restarted).map(p -> !p.isAlive()).orElse(true)) {
      awaitBefore(deadline, component + " was not started again:\n" + outputTail());
    }
    List<String> mustBeHealthy = component.equals(KAFKA) ? units() : List.of(component);
    for (String service : mustBeHealthy) {
      while (!healthy(service)) {
        if (pid(component) != restarted) {
          throw new IllegalStateException(component + " died again:\n" + outputTail());
        }
        awaitBefore(deadline, service + " did not get healthy again:\n" + outputTail());
      }
    }
    return Duration.ofNanos(System.nanoTime() - killedAt);
  }

  /** 200 on the service's {@code /health} (a replica's too): it reaches its database and Kafka. */
  boolean healthy(String unit) {
    try {
      java.net.HttpURLConnection connection =
          (java.net.HttpURLConnection)
              java.net.URI.create(url(unit) + "/health").toURL().openConnection();
      connection.setConnectTimeout(1_000);
      connection.setReadTimeout(3_000);
      try {
        return connection.getResponseCode() == 200;
      } finally {
        connection.disconnect();
      }
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * PostgreSQL refuses new connections to these databases of the run ({@code gateway}, {@code
   * payments}, {@code ledger}, {@code webhooks}) and ends their sessions, as a database that went
   * away would; closing the result lets them connect again. Only this run's databases are touched,
   * never the server's configuration.
   */
  AutoCloseable refuseConnections(List<String> databases) throws SQLException {
    List<String> names = databases.stream().map(d -> dbPrefix + "_" + d).toList();
    try (Connection admin = postgresServer();
        Statement statement = admin.createStatement()) {
      for (String name : names) {
        statement.execute("ALTER DATABASE " + name + " WITH ALLOW_CONNECTIONS false");
      }
      // Twice: a session that was opening while the first pass ran is ended by the second.
      for (int pass = 0; pass < 2; pass++) {
        for (String name : names) {
          statement.execute(
              "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"
                  + name
                  + "'");
        }
      }
    }
    return () -> {
      try (Connection admin = postgresServer();
          Statement statement = admin.createStatement()) {
        for (String name : names) {
          statement.execute("ALTER DATABASE " + name + " WITH ALLOW_CONNECTIONS true");
        }
      }
    };
  }

  private static void awaitBefore(long deadlineNanos, String failure) throws InterruptedException {
    if (System.nanoTime() > deadlineNanos) {
      throw new IllegalStateException(failure);
    }
    Thread.sleep(100);
  }

  boolean anyPortOpen() {
    return unitPorts.values().stream().anyMatch(SystemUnderTest::isOpen);
  }

  String outputTail() throws IOException {
    List<String> lines = Files.readAllLines(output, StandardCharsets.UTF_8);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
  }

  /** What bin/run printed so far, line by line. */
  List<String> outputLines() throws IOException {
    return Files.exists(output) ? Files.readAllLines(output, StandardCharsets.UTF_8) : List.of();
  }

  /** Whether bin/run printed {@code line} (ignoring surrounding blanks). */
  boolean outputHas(String line) throws IOException {
    return outputLines().stream().anyMatch(l -> l.strip().equals(line));
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

  static void deleteRecursively(Path folder) throws IOException {
    if (Files.exists(folder)) {
      try (var paths = Files.walk(folder)) {
        for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.delete(path);
        }
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static int freePortBesides(List<Integer> taken) throws IOException {
    int port;
    do {
      port = freePort();
    } while (taken.contains(port));
    return port;
  }

  private static int replicas(Map<String, String> environment, String variable) {
    return Integer.parseInt(environment.getOrDefault(variable, "1"));
  }

  /**
   * A base port for a service's {@code replicas} such that every replica's port (+ {@link
   * #REPLICA_PORT_STEP} each) is free now and none is taken by another service of this system;
   * records them in {@code taken} under the names bin/run gives the replicas.
   */
  private static int freePorts(String service, int replicas, Map<String, Integer> taken)
      throws IOException {
    for (int attempt = 0; attempt < 100; attempt++) {
      int base = freePort();
      List<Integer> ports = new java.util.ArrayList<>();
      for (int i = 0; i < replicas; i++) {
        ports.add(base + REPLICA_PORT_STEP * i);
      }
      if (ports.stream().allMatch(p -> p <= 65535 && !taken.containsValue(p) && isFree(p))) {
        for (int i = 0; i < replicas; i++) {
          taken.put(i == 0 ? service : service + "-" + (i + 1), ports.get(i));
        }
        return base;
      }
    }
    throw new IllegalStateException("no free ports for " + replicas + " replicas of " + service);
  }

  private static boolean isFree(int port) {
    try (ServerSocket socket = new ServerSocket(port)) {
      return true;
    } catch (IOException inUse) {
      return false;
    }
  }

  private static byte[] random(int bytes) {
    byte[] value = new byte[bytes];
    new SecureRandom().nextBytes(value);
    return value;
  }
}
