package ph.payments.gateway.testwidgets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.math.BigDecimal;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Optional;
import ph.payments.gateway.auth.MerchantContext;
import ph.payments.gateway.auth.RequiresScope;
import ph.payments.gateway.web.CommandEndpoint;
import ph.payments.gateway.web.Fields;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.errors.ErrorEnvelope;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.tx.Transactions;

/**
 * {@code POST /v1/test_widgets}: a mutating operation shaped like the real ones (validated body,
 * command to an owner, owner's reply as the answer), so the command path and idempotency can be
 * tested before the payment endpoints exist. Its owner is {@link WidgetOwner}.
 */
@Requires(env = "test")
@Controller("/v1/test_widgets")
public class TestWidgetsController {

  /** The command type the owner handles. */
  public static final String CREATE = "test_widget.create";

  /** Late replies answer 202 with the id, and GET by id stays truthful meanwhile. */
  static final CommandEndpoint.Creation CREATION =
      new CommandEndpoint.Creation(CREATE, "test_widget", "/v1/test_widgets");

  /** Id prefix of widgets; not an {@code IdType}, widgets exist only in tests. */
  public static final String PREFIX = "wgt_";

  static final BigDecimal MIN_AMOUNT = new BigDecimal("0.01");
  static final BigDecimal MAX_AMOUNT = new BigDecimal("999999999999");

  private final CommandEndpoint commands;
  private final String topic;
  private final Transactions transactions;

  public TestWidgetsController(
      CommandEndpoint commands,
      @Value("${test-widgets.topic:test.widgets}") String topic,
      Transactions transactions) {
    this.commands = commands;
    this.topic = topic;
    this.transactions = transactions;
  }

  /** {@code wgt_} and a time-ordered body like every other id. */
  static String newWidgetId() {
    String borrowed = IdType.MESSAGE.generate();
    return PREFIX + borrowed.substring(borrowed.indexOf('_') + 1);
  }

  @Post
  @RequiresScope("payments:write")
  @ExecuteOn(TaskExecutors.BLOCKING)
  public HttpResponse<?> create(HttpRequest<?> request, @Nullable @Body JsonNode json) {
    Fields body = Fields.of(json).allowOnly("amount", "currency", "description", "metadata");
    BigDecimal amount = body.requiredAmount("amount", MIN_AMOUNT, MAX_AMOUNT);
    String currency = body.currency("currency", "PHP");
    String description = body.optionalString("description", 0, 500);
    ObjectNode metadata = body.optionalObject("metadata");
    body.validate();

    ObjectNode validated = Json.mapper().createObjectNode();
    validated.put("amount", amount);
    validated.put("currency", currency);
    validated.put("description", description);
    validated.set("metadata", metadata == null ? Json.mapper().createObjectNode() : metadata);
    return commands.create(
        request, MerchantContext.of(request), topic, CREATION, newWidgetId(), validated);
  }

  /** The widget as its owner stored it, like an owner's internal read; then the pending view. */
  @Get("/{id}")
  @RequiresScope("payments:read")
  @ExecuteOn(TaskExecutors.BLOCKING)
  public HttpResponse<String> get(HttpRequest<?> request, String id) {
    MerchantContext merchant = MerchantContext.of(request);
    Optional<String> widget =
        transactions.inTransaction(
            connection -> {
              try (PreparedStatement select =
                  connection.prepareStatement(
                      "SELECT json_build_object('id', id, 'object', 'test_widget', 'environment',"
                          + " environment, 'amount', amount, 'currency', currency, 'description',"
                          + " description)::text FROM test_widgets WHERE id = ? AND merchant_id = ?"
                          + " AND environment = ?")) {
                select.setString(1, id);
                select.setString(2, merchant.merchantId());
                select.setString(3, merchant.environment());
                try (ResultSet rs = select.executeQuery()) {
                  return rs.next() ? Optional.of(rs.getString(1)) : Optional.<String>empty();
                }
              }
            });
    HttpResponse<String> read =
        widget
            .map(body -> HttpResponse.ok(body).contentType(MediaType.APPLICATION_JSON_TYPE))
            .orElseGet(
                () ->
                    HttpResponse.<String>status(HttpStatus.NOT_FOUND)
                        .contentType(MediaType.APPLICATION_JSON_TYPE)
                        .body(
                            Json.toText(
                                ErrorEnvelope.of(ErrorCode.NOT_FOUND, "No such test widget."))));
    return commands.orPending(read, merchant, CREATION, id);
  }
}
