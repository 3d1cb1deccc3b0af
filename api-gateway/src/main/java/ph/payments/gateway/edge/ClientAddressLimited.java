package ph.payments.gateway.edge;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a route without an API key whose requests are limited per client address ({@link
 * ClientAddressLimitFilter}). Marked on the route, not matched by path, so no spelling of the path
 * that reaches the route escapes the limit.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD})
public @interface ClientAddressLimited {
  ClientAddressLimits.Kind value();
}
