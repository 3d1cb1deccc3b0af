package ph.payments.webhooks;

import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import ph.payments.platform.sealing.ReplySealer;

/**
 * The key that seals the signing secrets in command replies (shared with the gateway, which alone
 * opens them). Created with the application so a service without {@code REPLY_SEALING_KEY} refuses
 * to start (unless {@code ALLOW_DEVELOPMENT_KEYS=true}) instead of failing on the first creation.
 */
@Factory
class ReplySealingFactory {

  @Context
  ReplySealer replySealer(
      @Nullable @Value("${security.reply-sealing-key:}") String key,
      @Value("${security.allow-development-keys:false}") boolean allowDevelopmentKeys) {
    return ReplySealer.configured(key, allowDevelopmentKeys);
  }
}
