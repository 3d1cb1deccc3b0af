package ph.payments.gateway.auth;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks sandbox-only operations (the test helpers): a {@code sk_live_} key gets 404 {@code
 * not_found}, as if the route did not exist.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface TestModeOnly {}
