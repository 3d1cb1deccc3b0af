package ph.payments.platform.micronaut;

import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SdkTracerProviderBuilder;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.platform.tracing.Tracing;

/**
 * The process's OpenTelemetry SDK. Spans are always made (their ids go into logs and onto
 * messages), but exported only when an OTLP endpoint is configured, over HTTP/protobuf:
 *
 * <ul>
 *   <li>{@code OTEL_EXPORTER_OTLP_ENDPOINT} (property {@code otel.exporter.otlp.endpoint}): the
 *       collector's base URL; spans go to {@code <base>/v1/traces}, as the OTel spec says;
 *   <li>{@code OTEL_EXPORTER_OTLP_TRACES_ENDPOINT}: the full URL, which wins;
 *   <li>{@code OTEL_BSP_SCHEDULE_DELAY}: milliseconds between exports (default 5000).
 * </ul>
 *
 * The service name is {@code micronaut.application.name}. Only W3C {@code traceparent} is
 * propagated. Every span is sampled: the traffic of one merchant-facing system is small enough, and
 * a trace with holes is worse than none.
 */
@Factory
public class TracingFactory {

  private static final Logger log = LoggerFactory.getLogger(TracingFactory.class);

  @Context
  @Bean(preDestroy = "close")
  public OpenTelemetrySdk openTelemetry(
      @Value("${micronaut.application.name:service}") String service,
      @Nullable @Value("${otel.exporter.otlp.endpoint:}") String endpoint,
      @Nullable @Value("${otel.exporter.otlp.traces.endpoint:}") String tracesEndpoint,
      @Value("${otel.bsp.schedule.delay:5000}") long scheduleDelayMillis) {
    SdkTracerProviderBuilder provider =
        SdkTracerProvider.builder()
            .setSampler(Sampler.alwaysOn())
            .setResource(
                Resource.getDefault()
                    .merge(Resource.create(Attributes.of(ServiceName.KEY, service))));
    String target = exportTarget(endpoint, tracesEndpoint);
    if (target != null) {
      provider.addSpanProcessor(
          BatchSpanProcessor.builder(OtlpHttpSpanExporter.builder().setEndpoint(target).build())
              .setScheduleDelay(Duration.ofMillis(scheduleDelayMillis))
              .build());
      log.info("exporting traces to {}", target);
    }
    OpenTelemetrySdk sdk =
        OpenTelemetrySdk.builder()
            .setTracerProvider(provider.build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();
    Tracing.use(sdk);
    return sdk;
  }

  /** Null when neither is set: no exporter. */
  static String exportTarget(String endpoint, String tracesEndpoint) {
    if (tracesEndpoint != null && !tracesEndpoint.isBlank()) {
      return tracesEndpoint.strip();
    }
    if (endpoint == null || endpoint.isBlank()) {
      return null;
    }
    String base = endpoint.strip();
    return (base.endsWith("/") ? base : base + "/") + "v1/traces";
  }

  /** The semantic-convention key, without a dependency on the semconv artifact for one name. */
  private static final class ServiceName {
    static final io.opentelemetry.api.common.AttributeKey<String> KEY =
        io.opentelemetry.api.common.AttributeKey.stringKey("service.name");
  }
}
