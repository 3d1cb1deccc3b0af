package ph.payments.gateway.ratelimit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * On a route that sends a command through {@code CommandEndpoint}: its rate-limit decision is taken
 * in the transaction that writes the command instead of one of its own before the route runs
 * ({@link DeferredRateLimit}). What the client sees is the same: a request over the limit is
 * answered 429 and writes nothing, whatever else was wrong with it.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface DecidedWithCommand {}
