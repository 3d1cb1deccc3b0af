package ph.payments.platform.tracing;

import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.MDC;

/** What a message written now carries of the writing thread's trace and request. */
public final class MessageContext {

  /**
   * {@code attributes} plus {@code traceparent} of the current span and {@code request-id} of the
   * MDC, when there are; the message's own attributes win (a writer may name another context).
   */
  public static Map<String, String> withCurrent(Map<String, String> attributes) {
    Map<String, String> current = new HashMap<>();
    Tracing.injectCurrent(current);
    String traceparent = current.get(Tracing.TRACEPARENT);
    String requestId = MDC.get(RequestIds.MDC_KEY);
    if (traceparent == null && requestId == null) {
      return attributes;
    }
    Map<String, String> all = new HashMap<>();
    if (traceparent != null) {
      all.put(Tracing.TRACEPARENT, traceparent);
    }
    if (requestId != null) {
      all.put(RequestIds.ATTRIBUTE, requestId);
    }
    all.putAll(attributes);
    return all;
  }

  /**
   * Runs {@code work} with no current span and no request id or trace id in the MDC, then puts them
   * back: for a thread that writes other threads' messages (a group of commands), which carry the
   * context their own attributes name ({@link #withCurrent} on their own threads), not this one's.
   */
  public static <T> T detached(Supplier<T> work) {
    String requestId = MDC.get(RequestIds.MDC_KEY);
    String traceId = MDC.get(Tracing.MDC_TRACE_ID);
    MDC.remove(RequestIds.MDC_KEY);
    MDC.remove(Tracing.MDC_TRACE_ID);
    try (Scope ignored = Context.root().makeCurrent()) {
      return work.get();
    } finally {
      restore(RequestIds.MDC_KEY, requestId);
      restore(Tracing.MDC_TRACE_ID, traceId);
    }
  }

  private static void restore(String key, String value) {
    if (value == null) {
      MDC.remove(key);
    } else {
      MDC.put(key, value);
    }
  }

  private MessageContext() {}
}
