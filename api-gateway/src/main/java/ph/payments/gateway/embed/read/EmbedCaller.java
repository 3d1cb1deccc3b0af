package ph.payments.gateway.embed.read;

import io.micronaut.http.HttpRequest;
import ph.payments.gateway.embed.tokens.EmbedClaims;

/**
 * Who is reading through {@code /embed/v1}, established by {@link EmbedAuthentication} from the
 * token alone: merchant, environment, audience, tabs and customer scope never come from the
 * request's path, query or body.
 */
public record EmbedCaller(EmbedClaims claims, String merchantName) {

  static final String ATTRIBUTE = "ph.payments.embed-caller";

  /**
   * @throws IllegalStateException when called for a request the filter did not authenticate
   */
  public static EmbedCaller of(HttpRequest<?> request) {
    return request
        .getAttribute(ATTRIBUTE, EmbedCaller.class)
        .orElseThrow(() -> new IllegalStateException("request was not authenticated"));
  }
}
