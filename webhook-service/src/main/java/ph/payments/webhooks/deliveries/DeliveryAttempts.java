package ph.payments.webhooks.deliveries;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.platform.tracing.Tracing;
import ph.payments.webhooks.endpoints.JdbcWebhookEndpoints;
import ph.payments.webhooks.signing.AccountSecrets;
import ph.payments.webhooks.signing.Signatures;
import ph.payments.webhooks.signing.SigningKeys;

/**
 * One attempt in two steps: {@link #prepare} reads what the attempt needs in the transaction that
 * leased it (a claim, or the fan-out that handed it off); {@link #run} signs the stored event bytes
 * with a fresh timestamp, POSTs them (no transaction held) and records the outcome under the claim
 * (a short transaction shared with the attempts that finished meanwhile, {@link AttemptRecorder}).
 * A delivery whose endpoint was disabled or deleted after it was scheduled ends as failed without
 * an attempt.
 */
@Singleton
public class DeliveryAttempts {

  private static final Logger log = LoggerFactory.getLogger(DeliveryAttempts.class);

  private final JdbcDeliveries deliveries;
  private final AttemptRecorder recorder;
  private final JdbcWebhookEndpoints endpoints;
  private final AccountSecrets accountSecrets;
  private final WebhookSender sender;
  private final Clock clock;
  private final MeterRegistry metrics;

  public DeliveryAttempts(
      JdbcDeliveries deliveries,
      AttemptRecorder recorder,
      JdbcWebhookEndpoints endpoints,
      AccountSecrets accountSecrets,
      WebhookSender sender,
      Clock clock,
      MeterRegistry metrics) {
    this.deliveries = deliveries;
    this.recorder = recorder;
    this.endpoints = endpoints;
    this.accountSecrets = accountSecrets;
    this.sender = sender;
    this.clock = clock;
    this.metrics = metrics;
  }

  /**
   * Counts the attempt by outcome ({@code succeeded}; {@code http_error}: the receiver answered
   * other than 2xx; {@code no_response}: timeout, refused connection or refused target) and times
   * it from sending to the response or the failure.
   */
  private void measure(AttemptOutcome outcome) {
    String result =
        outcome.succeeded()
            ? "succeeded"
            : outcome.statusCode() == null ? "no_response" : "http_error";
    Counter.builder("webhook.attempts")
        .description("Webhook delivery attempts by outcome")
        .tag("outcome", result)
        .register(metrics)
        .increment();
    Timer.builder("webhook.delivery.latency")
        .description("A webhook attempt from sending to the receiver's response or the failure")
        .tag("outcome", result)
        .register(metrics)
        .record(outcome.latencyMillis(), TimeUnit.MILLISECONDS);
  }

  /** What an attempt sends, read under the claim. Holds secrets: never logged. */
  public record Prepared(
      JdbcDeliveries.Claim claim, JdbcDeliveries.Work work, String url, SigningKeys keys) {
    @Override
    public String toString() {
      return "Prepared[delivery " + claim.id() + "]";
    }
  }

  /**
   * Runs a prepared attempt; failures of the database are left to the lease. The attempt is a span
   * in the trace its event arrived in, with that request id in the MDC (docs/tracing.md).
   */
  public void run(Prepared prepared) {
    JdbcDeliveries.Work work = prepared.work();
    Span span =
        Tracing.tracer()
            .spanBuilder("webhook attempt " + work.eventType())
            .setParent(
                Tracing.extract(
                    name -> name.equals(Tracing.TRACEPARENT) ? work.traceparent() : null))
            .setSpanKind(SpanKind.CLIENT)
            .setAttribute("webhook.delivery_id", work.id())
            .setAttribute("webhook.event_id", work.eventId())
            .startSpan();
    if (work.requestId() != null) {
      span.setAttribute(Tracing.REQUEST_ID_ATTRIBUTE, work.requestId());
    }
    Map<String, String> previousMdc = Tracing.putMdc(span, work.requestId());
    try (Scope ignored = span.makeCurrent()) {
      AttemptOutcome outcome = attempt(prepared);
      if (outcome.statusCode() != null) {
        span.setAttribute("http.response.status_code", (long) outcome.statusCode());
      }
      if (!outcome.succeeded()) {
        span.setStatus(StatusCode.ERROR, String.valueOf(outcome.error()));
      }
    } finally {
      Tracing.restoreMdc(previousMdc);
      span.end();
    }
  }

  private AttemptOutcome attempt(Prepared prepared) {
    JdbcDeliveries.Claim claim = prepared.claim();
    JdbcDeliveries.Work work = prepared.work();
    Instant attemptedAt = clock.instant();
    String signature =
        Signatures.header(
            attemptedAt.getEpochSecond(), work.body(), prepared.keys().active(attemptedAt));
    AttemptOutcome outcome =
        sender.send(
            new WebhookSender.Request(
                prepared.url(), work.body(), work.eventType(), work.id(), signature));
    JdbcDeliveries.Recorded recorded =
        recorder.record(
            new JdbcDeliveries.Finished(
                work.id(), claim.leaseToken(), prepared.url(), attemptedAt, outcome));
    measure(outcome);
    if (outcome.succeeded()) {
      log.debug(
          "delivery {} ({}) attempt {} to {}: {} in {} ms",
          work.id(),
          work.eventType(),
          recorded.attemptNumber(),
          claim.target(),
          outcome.statusCode(),
          outcome.latencyMillis());
    } else {
      log.info(
          "delivery {} ({}) attempt {} to {} failed: {}; {}",
          work.id(),
          work.eventType(),
          recorded.attemptNumber(),
          claim.target(),
          outcome.error(),
          recorded.status() == DeliveryStatus.PENDING
              ? "next attempt at " + recorded.nextAttemptAt()
              : recorded.status().wire());
    }
    return outcome;
  }

  /**
   * Reads what the leased attempts need, in the leasing transaction; a claim with nothing to send
   * (the delivery was just ended as failed, or is not this claim's any more) is left out. Each
   * endpoint and its keys are read once for all its claims.
   */
  public List<Prepared> prepare(Connection connection, List<JdbcDeliveries.Claim> claims)
      throws SQLException {
    Map<Long, JdbcDeliveries.Work> works =
        deliveries.works(connection, claims.stream().map(JdbcDeliveries.Claim::id).toList());
    return prepare(connection, claims, works, new Lookups());
  }

  /**
   * Endpoints and their signing keys as one transaction read them, each once: a claim's, or the
   * fan-out of one poll's events ({@link ph.payments.webhooks.events.FanOut.Reads}).
   */
  public static final class Lookups {
    private final Map<String, Optional<JdbcWebhookEndpoints.Stored>> endpointsById =
        new HashMap<>();
    private final Map<String, SigningKeys> keysByEndpoint = new HashMap<>();
  }

  /**
   * As {@link #prepare(Connection, List)}, for claims whose work the caller knows already (the
   * fan-out that has just written it), with endpoints and keys from {@code lookups}.
   */
  public List<Prepared> prepare(
      Connection connection,
      List<JdbcDeliveries.Claim> claims,
      Map<Long, JdbcDeliveries.Work> works,
      Lookups lookups)
      throws SQLException {
    List<Prepared> prepared = new ArrayList<>(claims.size());
    for (JdbcDeliveries.Claim claim : claims) {
      try {
        prepare(connection, claim, Optional.ofNullable(works.get(claim.id())), lookups)
            .ifPresent(prepared::add);
      } catch (RuntimeException e) {
        // E.g. a secret that does not decrypt: this delivery waits for its lease to end and tries
        // again; the others go ahead.
        log.error("webhook delivery {} cannot be prepared: {}", claim.id(), e.toString());
      }
    }
    return prepared;
  }

  private Optional<Prepared> prepare(
      Connection connection,
      JdbcDeliveries.Claim claim,
      Optional<JdbcDeliveries.Work> found,
      Lookups lookups)
      throws SQLException {
    if (found.isEmpty()) {
      return Optional.empty();
    }
    JdbcDeliveries.Work work = found.get();
    if (work.status() != DeliveryStatus.PENDING
        || work.leaseToken() == null
        || work.leaseToken() != claim.leaseToken()) {
      return Optional.empty(); // replayed, deleted or re-claimed since: not ours any more
    }
    if (work.endpointId() == null) {
      SigningKeys keys =
          accountSecrets
              .keys(connection, work.merchantId(), work.environment())
              .orElseThrow(() -> new IllegalStateException("no account secret"));
      return Optional.of(new Prepared(claim, work, work.overrideUrl(), keys));
    }
    Optional<JdbcWebhookEndpoints.Stored> endpoint = lookups.endpointsById.get(work.endpointId());
    if (endpoint == null) {
      endpoint = endpoints.findAny(connection, work.endpointId());
      lookups.endpointsById.put(work.endpointId(), endpoint);
    }
    JdbcWebhookEndpoints.Stored stored =
        endpoint.orElseThrow(() -> new IllegalStateException("no endpoint " + work.endpointId()));
    if (stored.deleted() || !stored.endpoint().enabled()) {
      deliveries.failClaimed(
          connection,
          work.id(),
          claim.leaseToken(),
          stored.deleted() ? "endpoint deleted" : "endpoint disabled",
          clock.instant());
      return Optional.empty();
    }
    SigningKeys keys = lookups.keysByEndpoint.get(work.endpointId());
    if (keys == null) {
      keys = endpoints.keys(connection, work.endpointId());
      lookups.keysByEndpoint.put(work.endpointId(), keys);
    }
    return Optional.of(new Prepared(claim, work, stored.endpoint().url(), keys));
  }
}
