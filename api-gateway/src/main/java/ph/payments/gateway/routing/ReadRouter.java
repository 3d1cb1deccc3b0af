package ph.payments.gateway.routing;

import io.micronaut.context.env.Environment;
import io.micronaut.http.HttpMethod;
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
import java.net.ConnectException;
import java.net.URI;
import java.net.URL;
import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.gateway.auth.MerchantContext;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.micronaut.InternalHeaders;
import ph.payments.platform.replicas.Replicas;
import ph.payments.platform.tracing.Tracing;

/**
 * Forwards a merchant's read to the service that owns the resource: the path and the allowed query
 * parameters go through; the merchant and environment are taken from the API key (headers the owner
 * trusts because of the internal token), and anything the client sent in their place is dropped.
 * The owner's status and body come back unchanged: owners answer in the same error envelope,
 * including 401 for a resource of the other environment. An owner may have several replicas (a
 * comma-separated list of base URLs); one that cannot be reached does not fail the read.
 */
@Singleton
public class ReadRouter {

  private static final Logger log = LoggerFactory.getLogger(ReadRouter.class);
  private static final Duration RETRY_AFTER = Duration.ofSeconds(1);

  private final Map<Owner, Replicas> replicas = new EnumMap<>(Owner.class);
  private final Map<String, HttpClient> clients = new HashMap<>();
  private final String internalToken;

  /**
   * Each owner's property holds one base URL or several, comma-separated: the owner's replicas
   * ({@link Replicas}).
   */
  public ReadRouter(Environment environment, HttpClientConfiguration configuration) {
    this.internalToken = environment.getProperty("internal.token", String.class).orElse("");
    for (Owner owner : Owner.values()) {
      String property = owner.urlProperty();
      Replicas urls =
          Replicas.parse(
              owner.name().toLowerCase(java.util.Locale.ROOT),
              property,
              environment.getProperty(property, String.class).orElse(null));
      replicas.put(owner, urls);
      for (String url : urls.urls()) {
        try {
          clients.computeIfAbsent(url, u -> HttpClient.create(toUrl(u), configuration));
        } catch (IllegalArgumentException e) {
          throw new IllegalStateException(property + " is not a list of URLs: " + url, e);
        }
      }
    }
  }

  private static URL toUrl(String url) {
    try {
      return URI.create(url).toURL();
    } catch (java.net.MalformedURLException e) {
      throw new IllegalArgumentException(e);
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
    String target = uri.build().toString();
    return exchange(
        owner,
        path,
        HttpMethod.GET,
        () ->
            HttpRequest.GET(target)
                .header(InternalHeaders.TOKEN, internalToken)
                .header(InternalHeaders.MERCHANT_ID, merchantId)
                .header(InternalHeaders.ENVIRONMENT, environment)
                .accept(MediaType.APPLICATION_JSON_TYPE));
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
        HttpMethod.GET,
        () -> HttpRequest.GET(path).header(InternalHeaders.TOKEN, internalToken).accept(accepted));
  }

  /**
   * Relays a body untouched to its owner (a provider's callback with its signature, an operator's
   * action). A POST may not be idempotent, so it goes to another replica only when the connection
   * to the first was never made; see {@link #exchange}.
   */
  public HttpResponse<String> postRaw(
      Owner owner, String path, byte[] body, Map<String, String> headers) {
    return exchange(
        owner,
        path,
        HttpMethod.POST,
        () -> {
          MutableHttpRequest<byte[]> forward =
              HttpRequest.POST(path, body)
                  .header(InternalHeaders.TOKEN, internalToken)
                  .contentType(MediaType.APPLICATION_JSON_TYPE);
          headers.forEach(forward::header);
          return forward;
        });
  }

  /**
   * Sends the request to the owner's replicas in turn ({@link Replicas}) until one answers. Every
   * answer, an error status included, is relayed as it is. A replica that cannot be reached passes
   * the request to the next: a GET on any failure before an answer (refused, reset, timed out),
   * since reading twice changes nothing; any other method only when the connection was refused or
   * timed out before it was made, so the first replica cannot have applied it.
   */
  private HttpResponse<String> exchange(
      Owner owner, String path, HttpMethod method, Supplier<MutableHttpRequest<?>> request) {
    try {
      return replicas
          .get(owner)
          .call(
              url -> {
                MutableHttpRequest<?> forward = request.get();
                // The request id and trace context go on, so the owner's logs and spans join the
                // caller's.
                Tracing.outgoingHeaders().forEach(forward::header);
                return send(url, forward);
              },
              failure -> notReached(failure, method));
    } catch (HttpClientException e) {
      log.warn("{} unreachable for {}: {}", owner, path, e.getMessage());
      throw ApiException.unavailable(
          "A service behind the gateway is unavailable. Please retry.", RETRY_AFTER);
    }
  }

  private HttpResponse<String> send(String url, MutableHttpRequest<?> forward) {
    try {
      HttpResponse<String> answer = clients.get(url).toBlocking().exchange(forward, String.class);
      return relay(answer.getStatus(), answer.getBody().orElse(""));
    } catch (HttpClientResponseException e) {
      return relay(e.getStatus(), e.getResponse().getBody(String.class).orElse(""));
    }
  }

  /** Whether a failed exchange may go to the next replica; see {@link #exchange}. */
  static boolean notReached(Exception failure, HttpMethod method) {
    if (!(failure instanceof HttpClientException)
        || failure instanceof HttpClientResponseException) {
      return false;
    }
    return method == HttpMethod.GET || Replicas.causedBy(failure, ConnectException.class);
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
