package ph.payments.platform.errors;

/**
 * Marks an exception that says nothing about the message being applied: a service it depends on did
 * not answer (ledger-service for a payout's hold, say), and the same message applies once that
 * service is back. Consumers retry such a record for as long as it takes and never park it for this
 * failure ({@code InfrastructureFailures}); parking would turn an outage of the dependency into a
 * rejection the merchant cannot undo.
 */
public interface TransientFailure {}
