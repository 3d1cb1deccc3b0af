package ph.payments.platform.micronaut;

import io.micronaut.context.annotation.Requires;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import io.micronaut.http.server.exceptions.response.ErrorContext;
import io.micronaut.http.server.exceptions.response.ErrorResponseProcessor;
import jakarta.inject.Singleton;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.kafka.InfrastructureFailures;

/**
 * Every exception no other handler takes. When the infrastructure failed (the database refuses
 * connections, the pool timed out waiting for one, a serialization failure: {@link
 * InfrastructureFailures}) the answer is 503 {@code internal_error} with {@code Retry-After}: the
 * request did nothing and the same request succeeds once the database is back (issue 19; it was
 * 500). Anything else is a bug: 500 {@code internal_error}, logged, the exception text never shown.
 */
@Produces
@Singleton
@Requires(classes = {ApiException.class, ExceptionHandler.class})
public class InfrastructureExceptionHandler
    implements ExceptionHandler<RuntimeException, HttpResponse<?>> {

  /** How long a client is asked to wait; a short refusal is the common case (docs/reliability). */
  public static final Duration RETRY_AFTER = Duration.ofSeconds(1);

  private static final Logger LOG = LoggerFactory.getLogger(InfrastructureExceptionHandler.class);

  private final ApiExceptionHandler api;
  private final ErrorResponseProcessor<?> errors;

  public InfrastructureExceptionHandler(ApiExceptionHandler api, ErrorResponseProcessor<?> errors) {
    this.api = api;
    this.errors = errors;
  }

  @Override
  public HttpResponse<?> handle(HttpRequest request, RuntimeException exception) {
    if (InfrastructureFailures.isInfrastructure(exception)) {
      LOG.warn(
          "{} {}: infrastructure unavailable, answering 503: {}",
          request.getMethod(),
          request.getPath(),
          exception.toString());
      return api.handle(
          request,
          ApiException.unavailable(
              "The service is temporarily unavailable. Retry the same request later.",
              RETRY_AFTER));
    }
    LOG.error("{} {}: unexpected error", request.getMethod(), request.getPath(), exception);
    return errors.processResponse(
        ErrorContext.builder(request).cause(exception).build(), HttpResponse.serverError());
  }
}
