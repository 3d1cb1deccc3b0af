package ph.payments.gateway.idempotency;

import io.micronaut.http.HttpRequest;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import ph.payments.platform.errors.ApiException;

/**
 * The {@code Idempotency-Key} header of a mutating request (SPEC parts 4 and 8): optional, 1 to 255
 * printable ASCII characters. Keys are opaque; a key means something only together with the
 * merchant and environment of the API key that sent it.
 */
public record IdempotencyKey(String value) {

  public static final String HEADER = "Idempotency-Key";
  public static final int MAX_LENGTH = 255;

  public IdempotencyKey {
    String problem = problem(value);
    if (problem != null) {
      throw new IllegalArgumentException("Idempotency-Key " + problem);
    }
  }

  /**
   * The request's key, or empty when it sent none.
   *
   * @throws ApiException 400 {@code invalid_request} with an issue on {@code Idempotency-Key} when
   *     the header is repeated, empty, too long or not printable ASCII
   */
  public static Optional<IdempotencyKey> from(HttpRequest<?> request) {
    List<String> values = request.getHeaders().getAll(HEADER);
    if (values.isEmpty()) {
      return Optional.empty();
    }
    if (values.size() > 1) {
      throw invalid("must be sent once");
    }
    String problem = problem(values.get(0));
    if (problem != null) {
      throw invalid(problem);
    }
    return Optional.of(new IdempotencyKey(values.get(0)));
  }

  /** What is wrong with {@code value} as a key, or null when nothing is. */
  static String problem(String value) {
    if (value == null || value.isEmpty()) {
      return "must not be empty";
    }
    if (value.length() > MAX_LENGTH) {
      return "must be at most " + MAX_LENGTH + " characters";
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < 0x20 || c > 0x7e) {
        return "must contain only printable ASCII characters";
      }
    }
    return null;
  }

  private static ApiException invalid(String problem) {
    return ApiException.invalid(Map.of(HEADER, problem));
  }

  @Override
  public String toString() {
    return value;
  }
}
