package ph.payments.payments.payments;

import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.time.Clock;

/** A clock the test moves; replaces the system clock only in the flow tests that move it. */
@Singleton
@Replaces(Clock.class)
@Requires(
    property = "spec.name",
    pattern = "PaymentFlowIT|RefundFlowIT|PayoutFlowIT|PaymentLinkFlowIT|InvoiceFlowIT")
public class MovableClock extends ph.payments.testkit.MovableClock {}
