package ph.payments.webhooks;

import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import jakarta.inject.Singleton;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.platform.keys.RequiredKeys;
import ph.payments.webhooks.deliveries.ListenConnections;
import ph.payments.webhooks.deliveries.RetrySchedule;
import ph.payments.webhooks.deliveries.WebhookSender;
import ph.payments.webhooks.signing.SecretBox;
import ph.payments.webhooks.targets.TargetPolicy;

/** Wires webhook-service's framework-free pieces from configuration (application.yml). */
@Factory
public class WebhooksFactory {

  private static final Logger log = LoggerFactory.getLogger(WebhooksFactory.class);

  /**
   * Public (it is in the source): used only when WEBHOOK_SECRET_KEY is unset and {@code
   * ALLOW_DEVELOPMENT_KEYS=true}.
   */
  static final String DEVELOPMENT_KEY = "development-only-webhook-secret-key";

  @Singleton
  WebhookSettings settings(
      @Value("${webhooks.retry-schedule}") String retrySchedule,
      @Value("${webhooks.retry-jitter:0.1}") double retryJitter,
      @Value("${webhooks.timeout:10s}") Duration timeout,
      @Value("${webhooks.allow-private-targets:false}") boolean allowPrivateTargets,
      @Value("${webhooks.max-endpoints:16}") int maxEndpoints,
      @Value("${webhooks.secret-rotation-overlap:24h}") Duration rotationOverlap,
      @Value("${webhooks.delivery.concurrency:256}") int concurrency,
      @Value("${webhooks.delivery.per-endpoint:64}") int perTarget,
      @Value("${webhooks.delivery.poll-interval:1s}") Duration pollInterval,
      @Value("${webhooks.retention:90d}") Duration retention) {
    WebhookSettings settings =
        new WebhookSettings(
            RetrySchedule.parse(retrySchedule),
            retryJitter,
            timeout,
            allowPrivateTargets,
            maxEndpoints,
            rotationOverlap,
            concurrency,
            perTarget,
            pollInterval,
            retention);
    log.info(
        "webhooks: retries after {}, timeout {}, private targets {}, {} attempts in flight ({} per"
            + " endpoint)",
        settings.retrySchedule(),
        timeout,
        allowPrivateTargets
            ? "ALLOWED (WEBHOOK_ALLOW_PRIVATE_TARGETS=true: local development only)"
            : "refused",
        concurrency,
        perTarget);
    return settings;
  }

  /**
   * Created with the context, so a missing or weak WEBHOOK_SECRET_KEY stops the service at start-up
   * ({@link RequiredKeys}) instead of at the first endpoint created.
   */
  @Context
  SecretBox secretBox(
      @Nullable @Value("${webhooks.secret-key:}") String key, RequiredKeys requiredKeys) {
    return new SecretBox(requiredKeys.require("WEBHOOK_SECRET_KEY", key, DEVELOPMENT_KEY));
  }

  /** The system resolver; tests may replace it. */
  @Singleton
  @Requires(missingBeans = TargetPolicy.Resolver.class)
  TargetPolicy.Resolver resolver() {
    return TargetPolicy.Resolver.SYSTEM;
  }

  @Singleton
  @Bean(preDestroy = "close")
  WebhookSender sender(WebhookSettings settings, TargetPolicy.Resolver resolver) {
    return new WebhookSender(
        settings.timeout(), settings.concurrency(), resolver, settings.allowPrivateTargets());
  }

  @Singleton
  ListenConnections listenConnections(
      @Value("${datasources.default.url}") String url,
      @Nullable @Value("${datasources.default.username:}") String username,
      @Nullable @Value("${datasources.default.password:}") String password) {
    return new ListenConnections(url, username, password);
  }
}
