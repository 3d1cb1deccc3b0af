package ph.payments.platform.micronaut;

import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Order;
import io.micronaut.core.order.Ordered;
import io.micronaut.core.propagation.MutablePropagatedContext;
import io.micronaut.http.BasicHttpAttributes;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ResponseFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import ph.payments.platform.tracing.RequestIds;
import ph.payments.platform.tracing.Tracing;

/**
 * First filter of every service: settles the request id ({@link RequestIds}), opens the server span
 * and makes both current for the rest of the request (MDC included); last on the way out, it puts
 * {@code X-Request-Id} on the response, whatever produced it (a controller, an exception handler,
 * another filter's refusal, a 404), and ends the span.
 *
 * <p>{@code tracing.trust-incoming-context}: whether a caller's {@code traceparent} becomes the
 * parent. True for the owners, whose only callers present the internal token; false at the gateway
 * (its {@code application.yml}), where traces start: a merchant's trace ids are not ours to adopt.
 */
@ServerFilter(ServerFilter.MATCH_ALL_PATTERN)
@Order(Ordered.HIGHEST_PRECEDENCE)
public class RequestTracingFilter {

  private static final String SPAN = RequestTracingFilter.class.getName() + ".span";
  private static final String REQUEST_ID = RequestTracingFilter.class.getName() + ".requestId";

  private final boolean trustIncomingContext;

  public RequestTracingFilter(
      @Value("${tracing.trust-incoming-context:true}") boolean trustIncomingContext) {
    this.trustIncomingContext = trustIncomingContext;
  }

  @RequestFilter
  public void in(HttpRequest<?> request, MutablePropagatedContext propagated) {
    String requestId = RequestIds.acceptOrGenerate(request.getHeaders().get(RequestIds.HEADER));
    Context parent =
        trustIncomingContext ? Tracing.extract(request.getHeaders()::get) : Context.root();
    Span span =
        Tracing.tracer()
            .spanBuilder(request.getMethodName())
            .setParent(parent)
            .setSpanKind(SpanKind.SERVER)
            .setAttribute("http.request.method", request.getMethodName())
            .setAttribute("url.path", request.getPath())
            .setAttribute(Tracing.REQUEST_ID_ATTRIBUTE, requestId)
            .startSpan();
    request.setAttribute(SPAN, span);
    request.setAttribute(REQUEST_ID, requestId);
    propagated.add(new TraceContextElement(parent.with(span), requestId));
  }

  @ResponseFilter
  public void out(HttpRequest<?> request, MutableHttpResponse<?> response) {
    String requestId =
        request
            .getAttribute(REQUEST_ID, String.class)
            .orElseGet(
                () -> RequestIds.acceptOrGenerate(request.getHeaders().get(RequestIds.HEADER)));
    response.getHeaders().set(RequestIds.HEADER, requestId);
    request
        .getAttribute(SPAN, Span.class)
        .ifPresent(
            span -> {
              BasicHttpAttributes.getUriTemplate(request)
                  .ifPresent(
                      route -> {
                        span.updateName(request.getMethodName() + " " + route);
                        span.setAttribute("http.route", route);
                      });
              int status = response.code();
              span.setAttribute("http.response.status_code", (long) status);
              if (status >= 500) {
                span.setStatus(StatusCode.ERROR);
              }
              span.end();
            });
  }
}
