package ph.payments.gateway.auth;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The scope a {@code /v1} operation needs; a key without it (and without {@code *}) gets 403 {@code
 * insufficient_scope}. Where an operation names several, any one of them will do (embed tokens take
 * the issue's {@code embed:write} and the convention's {@code embed_tokens:write}). Every {@code
 * /v1} route must carry one: a route without it is refused, so a forgotten annotation fails closed.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD})
public @interface RequiresScope {

  /** E.g. {@code payments:write}; several when each of them suffices. */
  String[] value();
}
