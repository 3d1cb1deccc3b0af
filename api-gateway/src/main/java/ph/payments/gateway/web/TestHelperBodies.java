package ph.payments.gateway.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.core.annotation.Nullable;
import java.util.regex.Pattern;
import ph.payments.platform.json.Json;

/**
 * The bodies of the sandbox test helpers ({@code POST /v1/test_helpers/<resources>/{id}/<action>}).
 * {@code fail} takes an optional {@code {code, message}}, the reason the sandbox provider or rail
 * reports, so a merchant can rehearse each decline (issue 19); without it the owner's default
 * reason is used ({@code payment_declined}, {@code refund_declined}, {@code payout_rejected}). The
 * other actions take no fields. A missing body is the same as {@code {}}.
 */
public final class TestHelperBodies {

  /** A failure code as providers report them: lower snake case. */
  public static final Pattern CODE = Pattern.compile("^[a-z][a-z0-9_]{0,63}$");

  public static final int MAX_MESSAGE = 500;

  /**
   * The command body for {@code action}: {@code {code?, message?}} for {@code fail}, {@code {}}
   * otherwise.
   *
   * @throws ph.payments.platform.errors.ApiException 400 {@code invalid_request} naming each bad
   *     field
   */
  public static ObjectNode of(String action, @Nullable JsonNode json) {
    ObjectNode command = Json.mapper().createObjectNode();
    if (json == null || json.isNull() || json.isMissingNode()) {
      return command;
    }
    if (!"fail".equals(action)) {
      Fields.of(json).allowOnly().validate();
      return command;
    }
    Fields body = Fields.of(json).allowOnly("code", "message");
    String code =
        body.optionalPattern(
            "code", CODE, "be lower snake case (a-z, 0-9, _) from a letter, at most 64 characters");
    String message = body.optionalString("message", 1, MAX_MESSAGE);
    body.validate();
    if (code != null) {
      command.put("code", code);
    }
    if (message != null) {
      command.put("message", message);
    }
    return command;
  }

  private TestHelperBodies() {}
}
