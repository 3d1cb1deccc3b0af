package ph.payments.platform.tracing;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import org.slf4j.MDC;

/**
 * The process's tracer and the W3C trace context as it crosses HTTP calls, the outbox and Kafka.
 *
 * <p>One {@link OpenTelemetry} per process, set at start-up ({@code TracingFactory}); until then
 * (plain unit tests) everything is a no-op. It is a static holder rather than an injected bean
 * because the code that starts spans (the outbox writer, the batch applier) is framework-free and
 * built in many places; a second Micronaut context in one JVM replaces the first's.
 */
public final class Tracing {

  /** W3C trace context header, on HTTP calls and Kafka records. */
  public static final String TRACEPARENT = "traceparent";

  /** The logging MDC key for the current trace id. */
  public static final String MDC_TRACE_ID = "trace_id";

  /** Span attribute naming the request id, so a trace can be found by it. */
  public static final String REQUEST_ID_ATTRIBUTE = "request.id";

  private static final String INSTRUMENTATION = "ph.payments";

  private static volatile OpenTelemetry openTelemetry = OpenTelemetry.noop();

  public static void use(OpenTelemetry instance) {
    openTelemetry = instance;
  }

  public static Tracer tracer() {
    return openTelemetry.getTracer(INSTRUMENTATION);
  }

  /**
   * The context a caller sent, read through {@code header} (a header lookup that answers null when
   * absent); the root context when none or malformed.
   */
  public static Context extract(Function<String, String> header) {
    return openTelemetry
        .getPropagators()
        .getTextMapPropagator()
        .extract(
            Context.root(),
            header,
            new TextMapGetter<>() {
              @Override
              public Iterable<String> keys(Function<String, String> carrier) {
                return java.util.List.of(TRACEPARENT);
              }

              @Override
              public String get(Function<String, String> carrier, String key) {
                return carrier == null ? null : carrier.apply(key);
              }
            });
  }

  /**
   * What an internal call or a message carries on from the current thread: {@code traceparent} of
   * the current span (when there is one) and the request id of the MDC (when set), by header name.
   */
  public static Map<String, String> outgoingHeaders() {
    Map<String, String> headers = new HashMap<>();
    injectCurrent(headers);
    String requestId = MDC.get(RequestIds.MDC_KEY);
    if (requestId != null) {
      headers.put(RequestIds.HEADER, requestId);
    }
    return headers;
  }

  /** Puts the current span's {@code traceparent} (and {@code tracestate}) into {@code carrier}. */
  public static void injectCurrent(Map<String, String> carrier) {
    openTelemetry
        .getPropagators()
        .getTextMapPropagator()
        .inject(Context.current(), carrier, (map, key, value) -> map.put(key, value));
  }

  /** Sets the MDC keys for {@code span} and {@code requestId}; returns what it replaced. */
  public static Map<String, String> putMdc(Span span, String requestId) {
    Map<String, String> previous = new HashMap<>(2);
    previous.put(RequestIds.MDC_KEY, MDC.get(RequestIds.MDC_KEY));
    previous.put(MDC_TRACE_ID, MDC.get(MDC_TRACE_ID));
    set(RequestIds.MDC_KEY, requestId);
    SpanContext context = span.getSpanContext();
    set(MDC_TRACE_ID, context.isValid() ? context.getTraceId() : null);
    return previous;
  }

  /** Undoes {@link #putMdc}. */
  public static void restoreMdc(Map<String, String> previous) {
    previous.forEach(Tracing::set);
  }

  private static void set(String key, String value) {
    if (value == null) {
      MDC.remove(key);
    } else {
      MDC.put(key, value);
    }
  }

  private Tracing() {}
}
