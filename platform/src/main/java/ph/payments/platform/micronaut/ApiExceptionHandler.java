package ph.payments.platform.micronaut;

import io.micronaut.context.annotation.Requires;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import jakarta.inject.Singleton;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorEnvelope;

/** Answers an {@link ApiException} with its status from the one mapping and the envelope. */
@Produces
@Singleton
@Requires(classes = {ApiException.class, ExceptionHandler.class})
public class ApiExceptionHandler
    implements ExceptionHandler<ApiException, HttpResponse<ErrorEnvelope>> {

  @Override
  public HttpResponse<ErrorEnvelope> handle(HttpRequest request, ApiException exception) {
    MutableHttpResponse<ErrorEnvelope> response =
        HttpResponse.<ErrorEnvelope>status(HttpStatus.valueOf(exception.httpStatus()))
            .body(exception.envelope());
    if (exception.retryAfter() != null) {
      long seconds = Math.max(1, (exception.retryAfter().toMillis() + 999) / 1000);
      response.header("Retry-After", Long.toString(seconds));
    }
    return response;
  }
}
