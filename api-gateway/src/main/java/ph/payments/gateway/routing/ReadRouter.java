package ph.payments.gateway.routing;

import io.micronaut.context.env.Environment;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpRequest;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.HttpClientConfiguration;
import io.micronaut.http.client.exceptions.HttpClientException;
import io.micronaut.http.client.exceptions.HttpClientResponseException;
import io.micronaut.http.uri.UriBuilder;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.net.URL;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.gateway.auth.MerchantContext;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.micronaut.InternalHeaders;
import ph.payments.platform.tracing.Tracing;

/**
 * Forwards a merchant's read to the service that owns the resource: the path and the allowed query
 * parameters go through; the merchant and environment are taken from the API key (headers the owner
 * trusts because of the internal token), and anything the client sent in their place is dropped.
 * The owner's status and body come back unchanged: owners answer in the same error envelope,
 * including 401 for a resource of the other environment.
 */
@Singleton
public class ReadRouter {

  private static final Logger log = LoggerFactory.getLogger(ReadRouter.class);
  private static final Duration RETRY_AFTER = Duration.ofSeconds(1);

  private final Map<Owner, HttpClient> clients = new EnumMap<>(Owner.class);
  private final String internalToken;

  public ReadRouter(Environment environment, HttpClientConfiguration configuration) {
    this.internalToken = environment.getProperty("internal.token", String.class).orElse("");
    for (Owner owner : Owner.values()) {
      String url =
          environment
              .getProperty(owner.urlProperty(), String.class)
              .orElseThrow(() -> new IllegalStateException(owner.urlProperty() + " is not set"));
      try {
        clients.put(owner, HttpClient.create(new URL(url), configuration));
      } catch (java.net.MalformedURLException e) {
        throw new IllegalStateException(owner.urlProperty() + " is not a URL: " + url, e);
      }
    }
  }

  /**
   * GETs {@code path} from {@code owner} for the caller, passing on only the query parameters in
   * {@code allowedQuery}.
   *
   * @throws ApiException 503 {@code internal_error} with {@code Retry-After} when the owner cannot
   *     be reached
   */
  public HttpResponse<String> get(
      HttpRequest<?> request,
      MerchantContext caller,
      Owner owner,
      String path,
      Set<String> allowedQuery) {
    UriBuilder uri = UriBuilder.of(path);
    request
        .getParameters()
        .forEach(
            (name, values) -> {
              if (allowedQuery.contains(name)) {
                uri.queryParam(name, values.toArray());
              }
            });
    return forward(caller.merchantId(), caller.environment(), owner, path, uri);
  }

  /**
   * GETs {@code path} from {@code owner} for a merchant and environment established by the caller
   * (an embed token's), with exactly the query parameters given, none taken from the client.
   *
   * @throws ApiException 503 {@code internal_error} with {@code Retry-After} when the owner cannot
   *     be reached
   */
  public HttpResponse<String> get(
      String merchantId, String environment, Owner owner, String path, Map<String, String> query) {
    UriBuilder uri = UriBuilder.of(path);
    query.forEach(uri::queryParam);
    return forward(merchantId, environment, owner, path, uri);
  }

  private HttpResponse<String> forward(
      String merchantId, String environment, Owner owner, String path, UriBuilder uri) {
    MutableHttpRequest<?> forward =
        HttpRequest.GET(uri.build().toString())
            .header(InternalHeaders.TOKEN, internalToken)
            .header(InternalHeaders.MERCHANT_ID, merchantId)
            .header(InternalHeaders.ENVIRONMENT, environment)
            .accept(MediaType.APPLICATION_JSON_TYPE);
    return exchange(owner, path, forward);
  }

  /**
   * GETs {@code path} from {@code owner} for a caller without an API key (a customer's browser on a
   * checkout page): no merchant scope is sent, so the owner answers only its public view.
   */
  public HttpResponse<String> getPublic(Owner owner, String path) {
    return getPublic(owner, path, MediaType.APPLICATION_JSON_TYPE);
  }

  /**
   * The same, for an owner's answer in other types than JSON (a CSV statement): {@code accepted}
   * goes out as {@code Accept}, and an owner refuses a request whose {@code Accept} it cannot
   * produce (406). Name JSON too, for the owner's error envelope.
   */
  public HttpResponse<String> getPublic(Owner owner, String path, MediaType... accepted) {
    return exchange(
        owner,
        path,
        HttpRequest.GET(path).header(InternalHeaders.TOKEN, internalToken).accept(accepted));
  }

  /** Relays a provider's callback, body and signature untouched, to its owner. */
  public HttpResponse<String> postRaw(
      Owner owner, String path, byte[] body, Map<String, String> headers) {
    MutableHttpRequest<byte[]> forward =
        HttpRequest.POST(path, body)
            .header(InternalHeaders.TOKEN, internalToken)
            .contentType(MediaType.APPLICATION_JSON_TYPE);
    headers.forEach(forward::header);
    return exchange(owner, path, forward);
  }

  private HttpResponse<String> exchange(Owner owner, String path, MutableHttpRequest<?> forward) {
    // The request id and trace context go on, so the owner's logs and spans join the caller's.
    Tracing.outgoingHeaders().forEach(forward::header);
    try {
      HttpResponse<String> answer = clients.get(owner).toBlocking().exchange(forward, String.class);
      return relay(answer.getStatus(), answer.getBody().orElse(""));
    } catch (HttpClientResponseException e) {
      return relay(e.getStatus(), e.getResponse().getBody(String.class).orElse(""));
    } catch (HttpClientException e) {
      log.warn("{} unreachable for {}: {}", owner, path, e.getMessage());
      throw ApiException.unavailable(
          "A service behind the gateway is unavailable. Please retry.", RETRY_AFTER);
    }
  }

  private static HttpResponse<String> relay(HttpStatus status, String body) {
    return HttpResponse.<String>status(status)
        .contentType(MediaType.APPLICATION_JSON_TYPE)
        .body(body);
  }

  @PreDestroy
  void close() {
    clients.values().forEach(HttpClient::close);
  }
}
