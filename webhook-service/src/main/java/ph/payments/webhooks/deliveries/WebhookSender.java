package ph.payments.webhooks.deliveries;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.ConnectTimeoutException;
import org.apache.hc.client5.http.DnsResolver;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.EndpointDetails;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.webhooks.signing.Signatures;
import ph.payments.webhooks.targets.GuardedDnsResolver;
import ph.payments.webhooks.targets.TargetPolicy;
import ph.payments.webhooks.targets.TargetRefusedException;

/**
 * POSTs one webhook attempt (SPEC part 6). The body is sent exactly as given (the event log's
 * bytes, which the signature covers) with {@code X-Service-Signature}, {@code X-Service-Event},
 * {@code X-Service-Delivery} and the fixed {@link #USER_AGENT}.
 *
 * <ul>
 *   <li><b>Timeout.</b> Connecting and the whole exchange are cut off after {@code timeout} (SPEC:
 *       acknowledge within 10 seconds): socket timeouts catch a silent receiver, and a deadline
 *       cancels the request of one that keeps trickling bytes.
 *   <li><b>No redirects</b> are followed (a 3xx is a failed attempt), no automatic retries are made
 *       (the retry schedule decides), no cookies, proxies or compression.
 *   <li><b>Targets.</b> One rule for test and live mode: the client's resolver ({@link
 *       GuardedDnsResolver}) refuses every address {@link TargetPolicy} does not allow under {@code
 *       WEBHOOK_ALLOW_PRIVATE_TARGETS}, before any connection is made, and the attempt records the
 *       same {@link TargetRefusedException#UNIFORM_ERROR} for each, so the attempt log tells
 *       nothing about what listens on an internal address (no port scanner).
 *   <li><b>Response snippets</b> are kept only when the connection went to a public address: a
 *       reply from a private address (allowed in local development) is never stored.
 * </ul>
 *
 * Connections are kept alive and reused between attempts to the same host. The pool never makes an
 * attempt wait for a connection: how many attempts run per target is the scheduler's business.
 */
public final class WebhookSender implements AutoCloseable {

  /** Fixed, with the interface version (SPEC part 9), so receivers can allowlist it. */
  public static final String USER_AGENT = "Service-Webhooks/1.0";

  public static final String EVENT_HEADER = "X-Service-Event";
  public static final String DELIVERY_HEADER = "X-Service-Delivery";

  /** How much of a response body the attempt log keeps. */
  static final int SNIPPET_BYTES = 1024;

  /** Read past the snippet at most this much, to reuse the connection; else drop it. */
  private static final int DRAIN_BYTES = 64 * 1024;

  private static final Logger log = LoggerFactory.getLogger(WebhookSender.class);

  private final Duration timeout;
  private final CloseableHttpClient client;
  private final ScheduledThreadPoolExecutor deadlines;

  /**
   * @param timeout connect and acknowledgement time of one attempt
   * @param maxConnections connections in the pool, at least the number of attempts in flight
   * @param resolver resolves target host names (the system resolver in production)
   * @param allowPrivateTargets {@code WEBHOOK_ALLOW_PRIVATE_TARGETS}: loopback and private
   *     addresses may be targets (local development); link-local and metadata never are
   */
  public WebhookSender(
      Duration timeout,
      int maxConnections,
      TargetPolicy.Resolver resolver,
      boolean allowPrivateTargets) {
    this.timeout = timeout;
    this.client = client(new GuardedDnsResolver(resolver, allowPrivateTargets), maxConnections);
    ScheduledThreadPoolExecutor deadlines =
        new ScheduledThreadPoolExecutor(
            1,
            runnable -> {
              Thread thread = new Thread(runnable, "webhook-deadlines");
              thread.setDaemon(true);
              return thread;
            });
    // Nearly every deadline is cancelled when its attempt ends: drop it from the queue then, rather
    // than keep it (and the request it would cancel, body and all) for the whole timeout; at 500
    // attempts a second and a two-minute timeout that was 60,000 requests held for nothing.
    deadlines.setRemoveOnCancelPolicy(true);
    this.deadlines = deadlines;
  }

  /**
   * One attempt.
   *
   * @param url the target
   * @param body exactly the bytes to send
   * @param eventType for {@code X-Service-Event}
   * @param deliveryId for {@code X-Service-Delivery}
   * @param signature the {@code X-Service-Signature} value, computed for this attempt
   */
  public record Request(
      String url, byte[] body, String eventType, long deliveryId, String signature) {}

  /** Sends and reports; never throws for anything the receiver or the network does. */
  public AttemptOutcome send(Request request) {
    long started = System.nanoTime();
    HttpPost post;
    try {
      post = new HttpPost(request.url());
    } catch (IllegalArgumentException e) {
      return AttemptOutcome.failure("invalid URL", 0);
    }
    post.setHeader(Signatures.HEADER, request.signature());
    post.setHeader(EVENT_HEADER, request.eventType());
    post.setHeader(DELIVERY_HEADER, Long.toString(request.deliveryId()));
    post.setHeader("User-Agent", USER_AGENT);
    post.setEntity(new ByteArrayEntity(request.body(), ContentType.APPLICATION_JSON));
    ScheduledFuture<?> deadline =
        deadlines.schedule(post::cancel, timeout.toMillis(), TimeUnit.MILLISECONDS);
    HttpClientContext context = HttpClientContext.create();
    try (ClassicHttpResponse response = client.executeOpen(null, post, context)) {
      // The status line is the acknowledgement; the body only feeds the attempt log.
      int status = response.getCode();
      long latency = millisSince(started);
      String snippet = readSnippet(response.getEntity(), post);
      if (!keepsSnippetFrom(context.getEndpointDetails())) {
        snippet = null; // read all the same, so the connection can be reused
      }
      boolean ok = status >= 200 && status < 300;
      String error = null;
      if (!ok) {
        error =
            "HTTP "
                + status
                + (status >= 300 && status < 400 ? " (redirects are not followed)" : "");
      }
      return new AttemptOutcome(status, error, snippet, latency, ok ? null : retryAfter(response));
    } catch (IOException | RuntimeException e) {
      long latency = millisSince(started);
      TargetRefusedException refused = refusedTarget(e);
      if (refused != null) {
        // The detail (address, kind) is for the operator's log, never for the attempt log.
        log.info("delivery {}: target refused, {}", request.deliveryId(), refused.getMessage());
        return AttemptOutcome.failure(TargetRefusedException.UNIFORM_ERROR, latency);
      }
      return AttemptOutcome.failure(describe(e, post.isCancelled()), latency);
    } finally {
      deadline.cancel(false);
    }
  }

  /** Deadlines scheduled and neither run nor cancelled: the attempts under way. */
  int pendingDeadlines() {
    return deadlines.getQueue().size();
  }

  /**
   * Up to 1 KB of the body. A short body is read to its end so the connection can be reused; a long
   * or slow one is cut off by dropping the connection, never waited for.
   */
  private static String readSnippet(HttpEntity entity, HttpPost post) {
    if (entity == null) {
      return null;
    }
    try {
      InputStream in = entity.getContent();
      String snippet = snippet(in.readNBytes(SNIPPET_BYTES));
      byte[] buffer = new byte[8192];
      long drained = 0;
      int read = 0;
      while (drained < DRAIN_BYTES && (read = in.read(buffer)) >= 0) {
        drained += read;
      }
      if (read >= 0) {
        post.cancel(); // more than we keep: drop the connection rather than read on
      } else {
        EntityUtils.consume(entity);
      }
      return snippet;
    } catch (IOException | RuntimeException e) {
      post.cancel();
      return null;
    }
  }

  /**
   * Whether the answer came from a public address, the only kind whose reply the attempt log may
   * keep. Unknown (no endpoint details) counts as not public.
   */
  static boolean keepsSnippetFrom(EndpointDetails endpoint) {
    return endpoint != null
        && endpoint.getRemoteAddress() instanceof InetSocketAddress remote
        && remote.getAddress() != null
        && TargetPolicy.classify(remote.getAddress()).reach() == TargetPolicy.Reach.PUBLIC;
  }

  /** The refusal behind {@code e}, however the client wrapped it, or null. */
  private static TargetRefusedException refusedTarget(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof TargetRefusedException refused) {
        return refused;
      }
    }
    return null;
  }

  private String describe(Exception e, boolean cancelled) {
    String limit =
        timeout.toMillis() % 1000 == 0 ? timeout.toSeconds() + "s" : timeout.toMillis() + "ms";
    if (cancelled) {
      return "timed out: no complete response within " + limit;
    }
    if (e instanceof ConnectTimeoutException) {
      return "timed out connecting (" + limit + ")";
    }
    if (e instanceof SocketTimeoutException) {
      return "timed out: no response within " + limit;
    }
    if (e instanceof ConnectException) {
      return "connection refused";
    }
    if (e instanceof UnknownHostException) {
      return "unknown host: " + e.getMessage();
    }
    if (e instanceof InterruptedIOException) {
      return "interrupted";
    }
    String message = e.getMessage();
    String text = e.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    return text.length() > 500 ? text.substring(0, 500) : text;
  }

  /** Seconds of a {@code Retry-After} answer to 429 or 503, or null. */
  private static Duration retryAfter(ClassicHttpResponse response) {
    int status = response.getCode();
    if (status != 429 && status != 503) {
      return null;
    }
    Header header = response.getFirstHeader("Retry-After");
    if (header == null) {
      return null;
    }
    try {
      long seconds = Long.parseLong(header.getValue().trim());
      return seconds > 0 ? Duration.ofSeconds(seconds) : null;
    } catch (NumberFormatException e) {
      return null; // an HTTP date: ignored, the schedule applies
    }
  }

  /** UTF-8 text of up to 1 KB, malformed bytes replaced; NUL is not storable in PostgreSQL text. */
  static String snippet(byte[] bytes) {
    if (bytes.length == 0) {
      return null;
    }
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPLACE)
            .onUnmappableCharacter(CodingErrorAction.REPLACE);
    CharBuffer chars = CharBuffer.allocate(bytes.length);
    decoder.decode(ByteBuffer.wrap(bytes), chars, true);
    chars.flip();
    return chars.toString().replace('\u0000', '\uFFFD');
  }

  private static long millisSince(long startedNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
  }

  private CloseableHttpClient client(DnsResolver resolver, int maxConnections) {
    Timeout limit = Timeout.of(timeout);
    return HttpClients.custom()
        .setConnectionManager(
            PoolingHttpClientConnectionManagerBuilder.create()
                .setDnsResolver(resolver)
                .setMaxConnTotal(maxConnections)
                // Per route as many as in total: targets sharing a host never queue on each other.
                .setMaxConnPerRoute(maxConnections)
                .setDefaultConnectionConfig(
                    ConnectionConfig.custom()
                        .setConnectTimeout(limit)
                        .setSocketTimeout(limit)
                        .setTimeToLive(TimeValue.ofMinutes(5))
                        .build())
                .build())
        .setDefaultRequestConfig(
            RequestConfig.custom()
                .setRedirectsEnabled(false)
                .setResponseTimeout(limit)
                .setConnectionRequestTimeout(limit)
                .build())
        .disableRedirectHandling()
        .disableAutomaticRetries()
        .disableCookieManagement()
        .disableContentCompression()
        .disableAuthCaching()
        .disableConnectionState()
        .evictExpiredConnections()
        .evictIdleConnections(TimeValue.ofMinutes(1))
        .build();
  }

  @Override
  public void close() {
    deadlines.shutdownNow();
    try {
      client.close();
    } catch (IOException e) {
      // Closing idle connections; nothing to recover.
    }
  }
}
