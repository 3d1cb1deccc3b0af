package ph.payments.contracts.commands;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * A mutating request accepted by the gateway, on its way to the service that owns the resource. The
 * merchant and environment always come from the API key, never from the request body.
 *
 * @param commandId {@code cmd_…}; the owner records it so a redelivered command is applied once
 * @param type what to do, one of {@link CommandTypes}
 * @param merchantId {@code mer_…}, or null for operator commands
 * @param environment {@code test} or {@code live}, or null for operator commands
 * @param resourceId the id the gateway allocated for the resource the command creates, or null
 * @param body the validated request body
 * @param issuedAt when the gateway accepted the command
 */
public record Command(
    String commandId,
    String type,
    String merchantId,
    String environment,
    String resourceId,
    JsonNode body,
    Instant issuedAt) {}
