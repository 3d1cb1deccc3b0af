package ph.payments.gateway.embed.read;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import ph.payments.gateway.embed.tokens.Tab;

/**
 * Marks an {@code /embed/v1} route an embed token may read, and the tab it belongs to; a token
 * without that tab gets 403 {@code insufficient_scope}. A route of {@code /embed/v1} without this
 * annotation is refused to every token ({@link EmbedAuthentication}), so a forgotten annotation
 * fails closed.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD})
public @interface EmbedRoute {

  /** The tab the route reads; none for the session, which any good token may read. */
  Tab[] tab() default {};
}
