package ph.payments.gateway.invoices;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.math.BigDecimal;
import java.util.Set;
import ph.payments.contracts.Topics;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.contracts.commands.CommandTypes;
import ph.payments.gateway.commands.CommandBus;
import ph.payments.gateway.merchants.MerchantAccounts;
import ph.payments.gateway.web.Fields;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;

/**
 * Operator API (behind the admin token): a merchant's activation fee as an invoice of kind {@code
 * activation_fee} (docs/invoices.md "Activation fees"). The merchant sees it in {@code GET
 * /v1/invoices} and pays it on its page; it credits the platform, never the merchant's balance.
 */
@Controller("/admin/v1/merchants/{id}")
@ExecuteOn(TaskExecutors.BLOCKING)
public class ActivationFeesController {

  private static final Set<String> ENVIRONMENTS = Set.of("test", "live");

  private final MerchantAccounts accounts;
  private final CommandBus commands;

  public ActivationFeesController(MerchantAccounts accounts, CommandBus commands) {
    this.accounts = accounts;
    this.commands = commands;
  }

  /**
   * {@code {amount, currency, environment, description, due_date, notes}} → 201 invoice, already
   * {@code sent}, without a number. {@code environment} defaults to {@code live}: the fee is real
   * money (the merchant pays it on the public page; it needs no live key).
   */
  @Post("/activation_fee_invoices")
  public HttpResponse<JsonNode> create(String id, @Nullable @Body JsonNode json) {
    Fields body =
        Fields.of(json)
            .allowOnly("amount", "currency", "environment", "description", "due_date", "notes");
    body.requiredAmount("amount", new BigDecimal("0.01"), InvoicesController.AMOUNT_MAX);
    String currency = body.currency("currency", "PHP");
    String environment =
        body.has("environment") ? body.optionalEnum("environment", ENVIRONMENTS) : "live";
    body.optionalString("description", 1, InvoicesController.DESCRIPTION_MAX);
    InvoicesController.dueDate(body);
    body.optionalString("notes", 0, InvoicesController.NOTES_MAX);
    body.validate();
    accounts.find(id); // 404 not_found for any id that is no merchant
    ObjectNode command = ((ObjectNode) json).deepCopy();
    command.put("currency", currency);
    command.remove("environment");
    return reply(
        new CommandBus.Request(
            Topics.PAYMENTS_COMMANDS,
            CommandTypes.ACTIVATION_FEES_CREATE,
            id,
            environment,
            IdType.INVOICE.generate(),
            command));
  }

  /**
   * Withdraws an unpaid activation fee (400 {@code invalid_state} for a merchant's own invoice or a
   * paid one; 409 {@code conflict} while a payment of it is open).
   */
  @Post("/activation_fee_invoices/{invoiceId}/void")
  public HttpResponse<JsonNode> voidFee(String id, String invoiceId) {
    accounts.find(id); // 404 not_found for any id that is no merchant
    if (!IdType.INVOICE.matches(invoiceId)) {
      throw ApiException.notFound("invoice");
    }
    return reply(
        new CommandBus.Request(
            Topics.PAYMENTS_COMMANDS,
            CommandTypes.ACTIVATION_FEES_VOID,
            id,
            null,
            invoiceId,
            Json.mapper().createObjectNode()));
  }

  private HttpResponse<JsonNode> reply(CommandBus.Request request) {
    CommandReply reply = commands.submit(request);
    return HttpResponse.<JsonNode>status(HttpStatus.valueOf(reply.status())).body(reply.body());
  }
}
