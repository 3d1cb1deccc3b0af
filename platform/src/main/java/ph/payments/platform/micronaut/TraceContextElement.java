package ph.payments.platform.micronaut;

import io.micronaut.core.propagation.ThreadPropagatedContextElement;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.util.Map;
import ph.payments.platform.tracing.Tracing;

/**
 * Carries a request's trace context and request id wherever Micronaut runs the request (the event
 * loop, the blocking pool, virtual threads): current OpenTelemetry context and MDC while it runs
 * there, restored afterwards.
 */
record TraceContextElement(Context context, String requestId)
    implements ThreadPropagatedContextElement<TraceContextElement.Previous> {

  record Previous(Scope scope, Map<String, String> mdc) {}

  @Override
  public Previous updateThreadContext() {
    Scope scope = context.makeCurrent();
    return new Previous(scope, Tracing.putMdc(Span.fromContext(context), requestId));
  }

  @Override
  public void restoreThreadContext(Previous previous) {
    Tracing.restoreMdc(previous.mdc());
    previous.scope().close();
  }
}
