package ph.payments.e2e;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * One whole system ({@link SystemUnderTest}, run folder {@code e2e/target/run-shared}) for every
 * e2e class that can share it: started by the first class that asks for it, stopped once when the
 * JUnit run ends (the root context's store closes it; surefire runs the e2e module in one JVM). A
 * class declares {@code @ExtendWith(SharedSystem.class)} and takes the system as a parameter of its
 * {@code @BeforeAll} method, likewise the {@link OtlpReceiver} every service exports its spans to.
 *
 * <p>What a sharing class must keep to: a merchant of its own for whatever it asserts, assertions
 * over global state (admin lists, metrics, topics, tables) scoped to its own ids or made deltas,
 * any order of classes, and nothing done to the system itself (no stop, kill or refused
 * connections: a class that breaks the system starts its own).
 *
 * <p>A failure in a sharing class carries the tail of bin/run's output, with where the services'
 * logs are, as a suppressed exception.
 */
final class SharedSystem
    implements ParameterResolver,
        TestExecutionExceptionHandler,
        LifecycleMethodExecutionExceptionHandler {

  /** The gateway's {@code /prometheus} answers only this bearer (MetricsE2EIT). */
  static final String METRICS_TOKEN = "mtk_e2e_shared_system";

  /** The key the sandbox provider signs its callbacks with (OperatorToolsE2EIT forges them). */
  static final String SANDBOX_CALLBACK_SECRET = "e2e-sandbox-callback-secret-shared-system";

  /** How long a checkout stays unpaid; see {@link #environment}. */
  static final Duration PAYMENT_EXPIRY = Duration.ofSeconds(45);

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(SharedSystem.class);

  /**
   * The union of what the sharing classes need, each setting harmless to the others. Checked
   * against every class: no class holds a payment pending for anything near {@link
   * #PAYMENT_EXPIRY}; no class asserts a per-address limit or a long webhook retry schedule.
   */
  static Map<String, String> environment(OtlpReceiver spans) {
    Map<String, String> environment = new LinkedHashMap<>();
    // Four services share one PostgreSQL server (max_connections) with other systems, and this
    // one idles on while the classes with systems of their own run (FaultInjectionE2EIT's may take
    // 4 × 20): beyond one per service, a connection goes back 10 s after its last use (Hikari's
    // floor; Micronaut reads the variable as datasources.default.idle-timeout), not 10 minutes.
    environment.put("DATABASE_POOL_SIZE", System.getenv().getOrDefault("DATABASE_POOL_SIZE", "5"));
    environment.put("DATABASE_POOL_MIN_IDLE", "1");
    environment.put("DATASOURCES_DEFAULT_IDLE_TIMEOUT", "10000");
    // A shared, busy machine can be slow to start four JVMs.
    environment.put("HEALTH_TIMEOUT_SECONDS", "240");
    // Live payments go to the local simulated connector (hosted pages, operator tools, journey).
    environment.put("LIVE_CONNECTORS", "simulated");
    // Every class's pages, forms, embed reads and refused keys come from 127.0.0.1, and the
    // per-address budgets are now one for all classes instead of one per class: raised, so no
    // class is throttled by the one before it (the limits have their own tests in api-gateway).
    environment.put("PAGE_FORM_RATE_LIMIT_PER_MINUTE", "1000");
    environment.put("CHECKOUT_RATE_LIMIT_PER_MINUTE", "3000");
    environment.put("EMBED_RATE_LIMIT_PER_MINUTE", "3000");
    environment.put("FAILED_AUTH_RATE_LIMIT_PER_MINUTE", "1200");
    // The invoice deadline job every second: balance_due soon after a deposit (invoices, topics).
    environment.put("INVOICE_SWEEP", "1s");
    // MerchantJourneyE2EIT: refused webhooks come back within the test's time, in SPEC's shape
    // (six steps); and its live payments, which nothing can pay from outside, expire in the run.
    // 45 s leaves every other class's pending payments (paid or refused within seconds) alone.
    environment.put("WEBHOOK_RETRY_SCHEDULE", "1s,1s,2s,3s,5s,8s");
    environment.put("PAYMENT_EXPIRY", PAYMENT_EXPIRY.toSeconds() + "s");
    environment.put("METRICS_TOKEN", METRICS_TOKEN);
    environment.put("METRICS_CONSUMER_LAG_INTERVAL", "2s");
    environment.put("SANDBOX_CALLBACK_SECRET", SANDBOX_CALLBACK_SECRET);
    // TracingE2EIT reads the spans; exporting them all run long is cheap (OtlpReceiver#totals).
    environment.put("OTEL_EXPORTER_OTLP_ENDPOINT", spans.baseUrl());
    environment.put("OTEL_BSP_SCHEDULE_DELAY", "1000");
    return environment;
  }

  /** The system and its span receiver, or why they could not start (not tried again). */
  private static final class Running implements AutoCloseable {
    private SystemUnderTest system;
    private OtlpReceiver spans;
    private Exception failure;

    Running() {
      try {
        spans = OtlpReceiver.start();
        system = SystemUnderTest.start("shared", environment(spans));
        System.out.println(
            "shared system: bin/run was ready after " + system.startUp.toMillis() + " ms");
      } catch (Exception e) {
        failure = e;
        if (spans != null) {
          spans.close();
        }
      }
    }

    SystemUnderTest system() {
      if (failure != null) {
        throw new IllegalStateException("the shared system did not start", failure);
      }
      return system;
    }

    @Override
    public void close() throws Exception {
      if (system == null) {
        return;
      }
      try {
        system.close();
      } finally {
        spans.close();
        System.out.println("shared system stopped; OTLP receiver got " + spans.totals());
      }
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == SystemUnderTest.class || type == OtlpReceiver.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    Running running =
        context
            .getRoot()
            .getStore(NAMESPACE)
            .getOrComputeIfAbsent(Running.class, k -> new Running(), Running.class);
    SystemUnderTest system = running.system();
    return parameter.getParameter().getType() == SystemUnderTest.class ? system : running.spans;
  }

  @Override
  public void handleTestExecutionException(ExtensionContext context, Throwable throwable)
      throws Throwable {
    throw withRunOutput(context, throwable);
  }

  @Override
  public void handleBeforeAllMethodExecutionException(ExtensionContext context, Throwable throwable)
      throws Throwable {
    throw withRunOutput(context, throwable);
  }

  @Override
  public void handleAfterAllMethodExecutionException(ExtensionContext context, Throwable throwable)
      throws Throwable {
    throw withRunOutput(context, throwable);
  }

  /** {@code failure}, with the tail of the shared run's bin/run output as a suppressed one. */
  private static Throwable withRunOutput(ExtensionContext context, Throwable failure) {
    Running running = context.getRoot().getStore(NAMESPACE).get(Running.class, Running.class);
    if (running != null && running.system != null) {
      String tail;
      try {
        tail = running.system.outputTail();
      } catch (Exception unreadable) {
        tail = "(unreadable: " + unreadable + ")";
      }
      failure.addSuppressed(
          new RunOutput(
              "the shared system's bin/run output ("
                  + running.system.runDir.resolve("run-output.log")
                  + "; the services' logs are in "
                  + running.system.runDir.resolve("logs")
                  + "), last lines:\n"
                  + tail));
    }
    return failure;
  }

  /** Not a failure of its own: the run's output beside one. */
  private static final class RunOutput extends Exception {
    RunOutput(String message) {
      super(message, null, false, false);
    }
  }
}
