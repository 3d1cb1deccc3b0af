package ph.payments.platform.tracing;

import java.util.HashMap;
import java.util.Map;
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

  private MessageContext() {}
}
