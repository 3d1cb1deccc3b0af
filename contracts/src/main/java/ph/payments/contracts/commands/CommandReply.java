package ph.payments.contracts.commands;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The owner's answer to a {@link Command}: exactly the HTTP status and body the merchant sees, so
 * the gateway can store it for idempotent replays without interpreting it.
 *
 * @param commandId the command answered
 * @param status HTTP status, e.g. 201 or 400
 * @param body the resource, or the error envelope of SPEC part 7
 */
public record CommandReply(String commandId, int status, JsonNode body) {}
