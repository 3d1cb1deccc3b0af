package ph.payments.payments.invoices;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import ph.payments.contracts.Envelope;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.contracts.commands.CommandTypes;
import ph.payments.payments.invoices.application.InvoiceDeadlines;
import ph.payments.payments.invoices.domain.InvoiceTerms;
import ph.payments.payments.payments.MovableClock;
import ph.payments.payments.support.ServiceClient;
import ph.payments.platform.commands.CommandDispatcher;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.tx.Transactions;
import ph.payments.testkit.FreshDatabase;
import ph.payments.testkit.TestDatabase;
import ph.payments.testkit.TestKafka;

/**
 * Invoices in payments-service (issue 17): fields in SPEC order and the money rules; create and
 * update refusals; sending and its numbers (also 20 at once); paying through {@code
 * payments.create} with every refusal of the plan's table, deposit then balance, the invoice moved
 * once per payment under a redelivered command; refunds reopening; void; the public read; and the
 * deadline job on a moved clock.
 */
@MicronautTest(transactional = false)
@ExtendWith(FreshDatabase.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InvoiceFlowIT implements TestPropertyProvider {

  private static final String TOKEN = "internal-token-for-invoice-flow-it";
  private static final String BASE = "https://pay.example.ph";

  @Inject CommandDispatcher dispatcher;
  @Inject Transactions transactions;
  @Inject EmbeddedServer server;
  @Inject MovableClock clock;
  @Inject InvoiceDeadlines deadlines;

  private ServiceClient service;

  @Override
  public Map<String, String> getProperties() {
    TestDatabase database = TestDatabase.forClass(getClass());
    Map<String, String> properties = new HashMap<>();
    properties.put("spec.name", "InvoiceFlowIT");
    properties.put("datasources.default.url", database.jdbcUrl());
    properties.put("datasources.default.username", database.user());
    properties.put("kafka.bootstrap.servers", TestKafka.bootstrapServers());
    properties.put("micronaut.server.port", "-1");
    properties.put("internal.token", TOKEN);
    properties.put("payments.public-base-url", BASE);
    properties.put("payments.sandbox.callback-secret", "sandbox-secret-for-invoice-flow-it");
    properties.put("payments.expiry-sweep", "1h");
    properties.put("payments.sandbox.batch-sweep", "1h");
    properties.put("payments.invoice-sweep", "1h");
    return properties;
  }

  private ServiceClient service() {
    if (service == null) {
      service = new ServiceClient(dispatcher, transactions, server.getURL().toString(), TOKEN);
    }
    return service;
  }

  private CommandReply command(String type, String merchant, String id, String body) {
    return service().dispatch(ServiceClient.command(type, merchant, "test", id, body));
  }

  private CommandReply create(String merchant, String body) {
    return command(CommandTypes.INVOICES_CREATE, merchant, IdType.INVOICE.generate(), body);
  }

  private JsonNode created(String merchant, String body) {
    CommandReply reply = create(merchant, body);
    assertEquals(201, reply.status(), reply.body().toString());
    return reply.body();
  }

  private JsonNode sent(String merchant, String body) {
    String id = created(merchant, body).get("id").asText();
    CommandReply reply = command(CommandTypes.INVOICES_SEND, merchant, id, null);
    assertEquals(200, reply.status(), reply.body().toString());
    return reply.body();
  }

  private CommandReply pay(String merchant, String invoiceId, String amount) {
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("invoice_id", invoiceId);
    json.put("method", "card");
    if (amount != null) {
      json.put("amount", new BigDecimal(amount));
    }
    json.put("merchant_name", "Invoice Store");
    return service()
        .dispatch(
            new Command(
                IdType.COMMAND.generate(),
                "payments.create",
                merchant,
                "test",
                IdType.PAYMENT.generate(),
                json,
                Instant.now()));
  }

  /** Pays and succeeds the payment, its success command delivered twice. */
  private String paid(String merchant, String invoiceId, String amount) {
    CommandReply payment = pay(merchant, invoiceId, amount);
    assertEquals(201, payment.status(), payment.body().toString());
    String paymentId = payment.body().get("id").asText();
    succeed(merchant, paymentId);
    return paymentId;
  }

  /** Succeeds a pending payment, the success command delivered twice (applied once). */
  private void succeed(String merchant, String paymentId) {
    Command succeed =
        ServiceClient.command("test_helpers.payments.succeed", merchant, "test", paymentId, null);
    Envelope envelope =
        new Envelope(
            IdType.MESSAGE.generate(),
            "command." + succeed.type(),
            succeed.commandId(),
            Instant.now(),
            Json.toBytes(succeed));
    dispatcher.prepare(envelope);
    assertTrue(transactions.<Boolean>inTransaction(c -> dispatcher.dispatch(c, envelope)));
    assertFalse(transactions.<Boolean>inTransaction(c -> dispatcher.dispatch(c, envelope)));
  }

  private String pending(String merchant, String invoiceId, String amount) {
    CommandReply payment = pay(merchant, invoiceId, amount);
    assertEquals(201, payment.status(), payment.body().toString());
    return payment.body().get("id").asText();
  }

  private JsonNode payment(String merchant, String id) {
    return service().json("/internal/payments/" + id, merchant, "test");
  }

  /** The refunds of a payment as (amount, reason, status), oldest first, read from its table. */
  private List<String> refundsOf(String paymentId) {
    return transactions.inTransaction(
        connection -> {
          List<String> refunds = new ArrayList<>();
          try (var select =
              connection.prepareStatement(
                  "SELECT amount, reason, status FROM refunds WHERE payment_id = ? ORDER BY id")) {
            select.setString(1, paymentId);
            try (var rs = select.executeQuery()) {
              while (rs.next()) {
                refunds.add(
                    rs.getBigDecimal(1).toPlainString()
                        + " "
                        + rs.getString(2)
                        + " "
                        + rs.getString(3));
              }
            }
          }
          return refunds;
        });
  }

  private JsonNode invoice(String merchant, String id) {
    return service().json("/internal/invoices/" + id, merchant, "test");
  }

  private JsonNode publicRead(JsonNode invoice) {
    String url = invoice.get("url").asText();
    return service()
        .json("/internal/public/invoices/" + url.substring(url.lastIndexOf('/') + 1), null, null);
  }

  private static String lines(String... items) {
    return "\"line_items\":[" + String.join(",", items) + "]";
  }

  private static String line(String description, String quantity, String unitAmount) {
    return "{\"description\":\""
        + description
        + "\",\"quantity\":"
        + quantity
        + ",\"unit_amount\":"
        + unitAmount
        + "}";
  }

  private static void assertMoney(String expected, JsonNode value) {
    assertEquals(0, new BigDecimal(expected).compareTo(value.decimalValue()), value.toString());
  }

  private LocalDate today() {
    return InvoiceTerms.manilaDate(clock.instant());
  }

  @Test
  void anInvoiceHasSpecsFieldsInOrderAndItsMoneyAddsUp() {
    String merchant = IdType.MERCHANT.generate();
    JsonNode v =
        created(
            merchant,
            "{"
                + lines(
                    line("Lechon", "2", "33.335"),
                    "{\"description\":\"Delivery\",\"quantity\":1,\"unit_amount\":150,"
                        + "\"amount\":120.5}")
                + ",\"discount_amount\":10,\"tax_amount\":12.34,\"shipment_id\":\"shp_abc\"}");
    List<String> fields = new ArrayList<>();
    v.fieldNames().forEachRemaining(fields::add);
    assertEquals(
        List.of(
            "id",
            "object",
            "environment",
            "kind",
            "number",
            "status",
            "amount",
            "subtotal",
            "tax_amount",
            "discount_amount",
            "currency",
            "description",
            "line_items",
            "customer_id",
            "due_date",
            "notes",
            "terms",
            "allow_partial_payment",
            "amount_paid",
            "amount_remaining",
            "deposit_rate",
            "deposit_due_at",
            "balance_due_at",
            "shipment_id",
            "forfeited_at",
            "issued_at",
            "sent_at",
            "paid_at",
            "void_at",
            "payment_id",
            "metadata",
            "url"),
        fields);
    assertEquals("invoice", v.get("object").asText());
    assertEquals("invoice", v.get("kind").asText());
    assertEquals("draft", v.get("status").asText());
    assertTrue(v.get("number").isNull());
    // 2 × 33.335 = 66.67 (HALF_UP); the given 120.50 is kept.
    assertMoney("66.67", v.get("line_items").get(0).get("amount"));
    assertMoney("120.50", v.get("line_items").get(1).get("amount"));
    assertMoney("187.17", v.get("subtotal"));
    assertMoney("189.51", v.get("amount"));
    assertMoney("0", v.get("amount_paid"));
    assertMoney("189.51", v.get("amount_remaining"));
    assertEquals("PHP", v.get("currency").asText());
    assertEquals("shp_abc", v.get("shipment_id").asText());
    assertTrue(
        v.get("url").asText().matches("https://pay\\.example\\.ph/i/it_[A-Za-z0-9_-]{32}"),
        v.get("url").asText());
    assertEquals(v, invoice(merchant, v.get("id").asText()));
    // A draft is not shown to customers.
    String url = v.get("url").asText();
    assertEquals(
        404,
        service()
            .get("/internal/public/invoices/" + url.substring(url.lastIndexOf('/') + 1), null, null)
            .statusCode());
    assertEquals(404, service().get("/internal/public/invoices/it_short", null, null).statusCode());
  }

  @Test
  void createAndUpdateRefuseWhatTheMoneyRulesForbid() {
    String merchant = IdType.MERCHANT.generate();
    CommandReply discount =
        create(merchant, "{" + lines(line("A", "1", "100")) + ",\"discount_amount\":100.01}");
    assertEquals(400, discount.status());
    assertEquals("invalid_request", discount.body().get("error").get("code").asText());
    assertTrue(discount.body().get("error").get("issues").has("discount_amount"));
    // A discount up to the subtotal is fine, whatever the tax: the amount is the tax.
    JsonNode all =
        created(
            merchant,
            "{" + lines(line("A", "1", "100")) + ",\"discount_amount\":100,\"tax_amount\":5}");
    assertMoney("5", all.get("amount"));
    CommandReply rate =
        create(merchant, "{" + lines(line("A", "1", "0.01")) + ",\"deposit_rate\":0.5}");
    assertEquals(400, rate.status());
    assertTrue(rate.body().get("error").get("issues").has("deposit_rate"));
    CommandReply customer =
        create(merchant, "{" + lines(line("A", "1", "1")) + ",\"customer_id\":\"cus_nope\"}");
    assertEquals(404, customer.status());
    assertEquals("customer_not_found", customer.body().get("error").get("code").asText());

    // A draft takes every field and is priced again; a sent invoice only texts.
    String id = created(merchant, "{" + lines(line("A", "1", "100")) + "}").get("id").asText();
    CommandReply update =
        command(
            CommandTypes.INVOICES_UPDATE,
            merchant,
            id,
            "{" + lines(line("B", "3", "10")) + ",\"tax_amount\":1.5,\"notes\":\"n\"}");
    assertEquals(200, update.status(), update.body().toString());
    assertMoney("31.5", update.body().get("amount"));
    assertEquals("n", update.body().get("notes").asText());
    assertEquals(200, command(CommandTypes.INVOICES_SEND, merchant, id, null).status());
    CommandReply money = command(CommandTypes.INVOICES_UPDATE, merchant, id, "{\"tax_amount\":2}");
    assertEquals(400, money.status());
    assertEquals("invalid_state", money.body().get("error").get("code").asText());
    CommandReply text =
        command(
            CommandTypes.INVOICES_UPDATE, merchant, id, "{\"terms\":\"Net 30\",\"notes\":null}");
    assertEquals(200, text.status(), text.body().toString());
    assertEquals("Net 30", text.body().get("terms").asText());
    assertTrue(text.body().get("notes").isNull());
    // Another merchant's invoice is not found; another environment's is 401.
    assertEquals(
        404, command(CommandTypes.INVOICES_SEND, IdType.MERCHANT.generate(), id, null).status());
    assertEquals(
        401,
        service()
            .dispatch(ServiceClient.command(CommandTypes.INVOICES_VOID, merchant, "live", id, null))
            .status());
  }

  @Test
  void sendingNumbersPerMerchantAndYearAndOnlyADraft() {
    String merchant = IdType.MERCHANT.generate();
    int year = today().getYear();
    JsonNode first = sent(merchant, "{" + lines(line("A", "1", "10")) + "}");
    JsonNode second = sent(merchant, "{" + lines(line("A", "1", "10")) + "}");
    assertEquals(String.format("INV-%d-0001", year), first.get("number").asText());
    assertEquals(String.format("INV-%d-0002", year), second.get("number").asText());
    assertEquals("sent", first.get("status").asText());
    assertEquals(first.get("issued_at"), first.get("sent_at"));
    assertEquals(
        String.format("INV-%d-0001", year),
        sent(IdType.MERCHANT.generate(), "{" + lines(line("A", "1", "10")) + "}")
            .get("number")
            .asText(),
        "each merchant counts on its own");
    CommandReply again =
        command(CommandTypes.INVOICES_SEND, merchant, first.get("id").asText(), null);
    assertEquals(400, again.status());
    assertEquals("invalid_state", again.body().get("error").get("code").asText());
    String past =
        created(
                merchant,
                "{"
                    + lines(line("A", "1", "10"))
                    + ",\"due_date\":\""
                    + today().minusDays(1)
                    + "\"}")
            .get("id")
            .asText();
    CommandReply late = command(CommandTypes.INVOICES_SEND, merchant, past, null);
    assertEquals(400, late.status());
    assertTrue(late.body().get("error").get("issues").has("due_date"));
    String zero = created(merchant, "{" + lines(line("Free", "1", "0")) + "}").get("id").asText();
    assertEquals(400, command(CommandTypes.INVOICES_SEND, merchant, zero, null).status());
    // The refused sends took no number.
    assertEquals(
        String.format("INV-%d-0003", year),
        sent(merchant, "{" + lines(line("A", "1", "10")) + "}").get("number").asText());
  }

  @Test
  void twentySendsAtOnceTakeTwentyConsecutiveNumbers() throws Exception {
    String merchant = IdType.MERCHANT.generate();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      ids.add(created(merchant, "{" + lines(line("A", "1", "10")) + "}").get("id").asText());
    }
    ExecutorService pool = Executors.newFixedThreadPool(20);
    try {
      List<Future<CommandReply>> replies = new ArrayList<>();
      for (String id : ids) {
        replies.add(pool.submit(() -> command(CommandTypes.INVOICES_SEND, merchant, id, null)));
      }
      TreeSet<String> numbers = new TreeSet<>();
      for (Future<CommandReply> reply : replies) {
        assertEquals(200, reply.get().status(), reply.get().body().toString());
        numbers.add(reply.get().body().get("number").asText());
      }
      int year = today().getYear();
      TreeSet<String> expected = new TreeSet<>();
      for (int n = 1; n <= 20; n++) {
        expected.add(String.format("INV-%d-%04d", year, n));
      }
      assertEquals(expected, numbers);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aTwoStageInvoiceIsPaidDepositThenBalanceEachMovedOnce() {
    String merchant = IdType.MERCHANT.generate();
    String draft =
        created(merchant, "{" + lines(line("Catering", "4", "250")) + ",\"deposit_rate\":0.3}")
            .get("id")
            .asText();
    CommandReply notSent = pay(merchant, draft, null);
    assertEquals(409, notSent.status());
    assertEquals("invoice_not_sent", notSent.body().get("error").get("code").asText());
    JsonNode v = command(CommandTypes.INVOICES_SEND, merchant, draft, null).body();
    assertTrue(v.get("deposit_due_at").isNumber());
    assertTrue(v.get("balance_due_at").isNull(), "no due date, no balance term");
    JsonNode page = publicRead(v);
    assertMoney("300", page.get("amount_due_now"));
    assertEquals("deposit", page.get("stage").asText());
    CommandReply wrong = pay(merchant, draft, "500");
    assertEquals(400, wrong.status());
    assertEquals("partial_not_allowed", wrong.body().get("error").get("code").asText());
    CommandReply above = pay(merchant, draft, "1000.01");
    assertEquals(400, above.status());
    assertEquals("invalid_request", above.body().get("error").get("code").asText());
    assertTrue(above.body().get("error").get("issues").has("amount"));
    assertEquals(404, pay(IdType.MERCHANT.generate(), draft, null).status(), "another merchant's");

    // No amount: the deposit. The payment inherits the description and the return URL.
    CommandReply deposit = pay(merchant, draft, null);
    assertEquals(201, deposit.status(), deposit.body().toString());
    assertMoney("300", deposit.body().get("amount"));
    assertEquals("Invoice " + v.get("number").asText(), deposit.body().get("description").asText());
    assertEquals(v.get("url").asText(), deposit.body().get("return_url").asText());
    assertEquals("sent", invoice(merchant, draft).get("status").asText(), "pending moves nothing");
    String first = paid(merchant, draft, "300");
    JsonNode partial = invoice(merchant, draft);
    assertEquals("partial", partial.get("status").asText());
    assertMoney("300", partial.get("amount_paid"));
    assertMoney("700", partial.get("amount_remaining"));
    assertEquals(first, partial.get("payment_id").asText());
    page = publicRead(partial);
    assertEquals("balance", page.get("stage").asText());
    assertMoney("700", page.get("amount_due_now"));
    assertEquals(1, page.get("payments").size());

    String second = paid(merchant, draft, null);
    JsonNode done = invoice(merchant, draft);
    assertEquals("paid", done.get("status").asText());
    assertMoney("1000", done.get("amount_paid"));
    assertMoney("0", done.get("amount_remaining"));
    assertEquals(second, done.get("payment_id").asText());
    assertTrue(done.get("paid_at").isNumber());
    page = publicRead(done);
    assertEquals(2, page.get("payments").size());
    assertMoney("300", page.get("payments").get(0).get("amount"));
    assertTrue(page.get("stage").isNull());
    CommandReply again = pay(merchant, draft, null);
    assertEquals(409, again.status());
    assertEquals("invoice_paid", again.body().get("error").get("code").asText());
    assertEquals(400, command(CommandTypes.INVOICES_VOID, merchant, draft, null).status());

    // A refund gives money back and reopens the invoice.
    CommandReply refund =
        command(
            "refunds.create",
            merchant,
            IdType.REFUND.generate(),
            "{\"payment\":\"" + second + "\",\"amount\":100}");
    assertEquals("succeeded", refund.body().get("status").asText(), refund.body().toString());
    JsonNode reopened = invoice(merchant, draft);
    assertEquals("partial", reopened.get("status").asText());
    assertMoney("900", reopened.get("amount_paid"));
    assertMoney("100", reopened.get("amount_remaining"));
    assertTrue(reopened.get("paid_at").isNull());
  }

  @Test
  void partialPaymentsTakeAnyAmountUpToTheRemaining() {
    String merchant = IdType.MERCHANT.generate();
    JsonNode v =
        sent(merchant, "{" + lines(line("A", "1", "100")) + ",\"allow_partial_payment\":true}");
    String id = v.get("id").asText();
    paid(merchant, id, "12.34");
    paid(merchant, id, "0.66");
    JsonNode partial = invoice(merchant, id);
    assertEquals("partial", partial.get("status").asText());
    assertMoney("13", partial.get("amount_paid"));
    assertMoney("87", partial.get("amount_remaining"));
    assertEquals(400, pay(merchant, id, "87.01").status());
    paid(merchant, id, "87");
    assertEquals("paid", invoice(merchant, id).get("status").asText());
  }

  @Test
  void aVoidInvoiceTakesNoPayment() {
    String merchant = IdType.MERCHANT.generate();
    String id = sent(merchant, "{" + lines(line("A", "1", "100")) + "}").get("id").asText();
    CommandReply voided = command(CommandTypes.INVOICES_VOID, merchant, id, null);
    assertEquals(200, voided.status());
    assertEquals("void", voided.body().get("status").asText());
    assertTrue(voided.body().get("void_at").isNumber());
    CommandReply pay = pay(merchant, id, null);
    assertEquals(409, pay.status());
    assertEquals("invoice_void", pay.body().get("error").get("code").asText());
    assertEquals(400, command(CommandTypes.INVOICES_VOID, merchant, id, null).status());
    assertEquals(
        400, command(CommandTypes.INVOICES_UPDATE, merchant, id, "{\"notes\":\"x\"}").status());
    assertEquals("void", publicRead(voided.body()).get("status").asText());
  }

  @Test
  void listsFilterByStatusAndCustomer() {
    String merchant = IdType.MERCHANT.generate();
    String customer =
        command(
                CommandTypes.CUSTOMERS_CREATE,
                merchant,
                IdType.CUSTOMER.generate(),
                "{\"name\":\"Juan dela Cruz\"}")
            .body()
            .get("id")
            .asText();
    JsonNode mine =
        sent(merchant, "{" + lines(line("A", "1", "1")) + ",\"customer_id\":\"" + customer + "\"}");
    created(merchant, "{" + lines(line("A", "1", "1")) + "}");
    assertEquals(2, service().json("/internal/invoices", merchant, "test").get("data").size());
    JsonNode sentOnly = service().json("/internal/invoices?status=sent", merchant, "test");
    assertEquals(1, sentOnly.get("data").size());
    assertEquals(mine.get("id"), sentOnly.get("data").get(0).get("id"));
    assertEquals(
        1,
        service()
            .json("/internal/invoices?customer_id=" + customer, merchant, "test")
            .get("data")
            .size());
    assertEquals(
        400, service().get("/internal/invoices?status=open", merchant, "test").statusCode());
    assertEquals("Juan dela Cruz", publicRead(mine).get("customer_name").asText());
    CommandReply payment = pay(merchant, mine.get("id").asText(), null);
    assertEquals(customer, payment.body().get("customer_id").asText());
  }

  @Test
  void theJobForfeitsUnpaidDepositsAndAnnouncesBalancesOnce() {
    String merchant = IdType.MERCHANT.generate();
    String body = "{" + lines(line("A", "1", "1000")) + ",\"deposit_rate\":0.5}";
    JsonNode unpaid = sent(merchant, body);
    JsonNode depositPaid = sent(merchant, body);
    paid(merchant, depositPaid.get("id").asText(), null);
    JsonNode termed =
        sent(
            merchant,
            "{" + lines(line("A", "1", "1000")) + ",\"due_date\":\"" + today().plusDays(2) + "\"}");
    assertEquals(
        InvoiceTerms.balanceDueAt(today().plusDays(2)).getEpochSecond(),
        termed.get("balance_due_at").asLong());

    deadlines.runDue();
    // The deposit is paid: the balance is due now; the rest waits.
    assertEquals(
        List.of(InvoiceDeadlines.BALANCE_DUE),
        service().eventTypes(depositPaid.get("id").asText()));
    assertEquals(List.of(), service().eventTypes(unpaid.get("id").asText()));
    assertEquals(List.of(), service().eventTypes(termed.get("id").asText()));

    clock.advance(InvoiceTerms.DEPOSIT_WINDOW.plus(Duration.ofSeconds(1)));
    deadlines.runDue();
    deadlines.runDue();
    JsonNode forfeited = invoice(merchant, unpaid.get("id").asText());
    assertEquals("void", forfeited.get("status").asText());
    assertTrue(forfeited.get("forfeited_at").isNumber());
    assertEquals(
        List.of(InvoiceDeadlines.FORFEITED), service().eventTypes(unpaid.get("id").asText()));
    JsonNode event = service().events(unpaid.get("id").asText()).get(0);
    assertEquals("void", event.get("data").get("object").get("status").asText());
    assertEquals(
        List.of(InvoiceDeadlines.BALANCE_DUE),
        service().eventTypes(depositPaid.get("id").asText()),
        "once per invoice");
    assertEquals(
        List.of(InvoiceDeadlines.BALANCE_DUE), service().eventTypes(termed.get("id").asText()));
    assertEquals(409, pay(merchant, unpaid.get("id").asText(), null).status());
    assertNotEquals(
        "void", invoice(merchant, depositPaid.get("id").asText()).get("status").asText());
  }

  /** A fresh invoice of 100.00 (partial payments allowed) in {@code status}. */
  private String inStatus(String merchant, String status) {
    String body = "{" + lines(line("A", "1", "100")) + ",\"allow_partial_payment\":true}";
    if (status.equals("draft")) {
      return created(merchant, body).get("id").asText();
    }
    String id = sent(merchant, body).get("id").asText();
    switch (status) {
      case "partial" -> paid(merchant, id, "10");
      case "paid" -> paid(merchant, id, "100");
      case "void" ->
          assertEquals(200, command(CommandTypes.INVOICES_VOID, merchant, id, null).status());
      default -> {}
    }
    assertEquals(status, invoice(merchant, id).get("status").asText());
    return id;
  }

  @Test
  void everyActionFromEveryStatusAnswersAsTheStateMachineTableSays() {
    String merchant = IdType.MERCHANT.generate();
    // status -> update money, update text, send, void, pay (no amount)
    Map<String, List<Integer>> table = new java.util.LinkedHashMap<>();
    table.put("draft", List.of(200, 200, 200, 200, 409));
    table.put("sent", List.of(400, 200, 400, 200, 201));
    table.put("partial", List.of(400, 200, 400, 200, 201));
    table.put("paid", List.of(400, 200, 400, 400, 409));
    table.put("void", List.of(400, 400, 400, 400, 409));
    List<String> failures = new ArrayList<>();
    table.forEach(
        (status, expected) -> {
          List<Integer> actual =
              List.of(
                  command(
                          CommandTypes.INVOICES_UPDATE,
                          merchant,
                          inStatus(merchant, status),
                          "{\"tax_amount\":1}")
                      .status(),
                  command(
                          CommandTypes.INVOICES_UPDATE,
                          merchant,
                          inStatus(merchant, status),
                          "{\"notes\":\"Thank you\"}")
                      .status(),
                  command(CommandTypes.INVOICES_SEND, merchant, inStatus(merchant, status), null)
                      .status(),
                  command(CommandTypes.INVOICES_VOID, merchant, inStatus(merchant, status), null)
                      .status(),
                  pay(merchant, inStatus(merchant, status), null).status());
          if (!expected.equals(actual)) {
            failures.add(status + ": expected " + expected + " but was " + actual);
          }
        });
    assertEquals(List.of(), failures);
  }

  @Test
  void thePublicReadHasThePlansFieldsInOrder() {
    String merchant = IdType.MERCHANT.generate();
    JsonNode v = sent(merchant, "{" + lines(line("A", "2", "100")) + ",\"deposit_rate\":0.5}");
    JsonNode page = publicRead(v);
    List<String> fields = new ArrayList<>();
    page.fieldNames().forEachRemaining(fields::add);
    assertEquals(
        List.of(
            "id",
            "merchant_id",
            "environment",
            "kind",
            "number",
            "status",
            "currency",
            "description",
            "customer_name",
            "line_items",
            "subtotal",
            "discount_amount",
            "tax_amount",
            "amount",
            "amount_paid",
            "amount_remaining",
            "amount_due_now",
            "stage",
            "allow_partial_payment",
            "deposit_rate",
            "due_date",
            "deposit_due_at",
            "balance_due_at",
            "issued_at",
            "paid_at",
            "void_at",
            "forfeited_at",
            "notes",
            "terms",
            "payments",
            "methods"),
        fields);
    assertEquals(merchant, page.get("merchant_id").asText());
    assertEquals("sent", page.get("status").asText());
    assertMoney("0.5", page.get("deposit_rate"));
    assertMoney("100", page.get("amount_due_now"));
    assertEquals("deposit", page.get("stage").asText());
    assertEquals(
        List.of("description", "quantity", "unit_amount", "amount"),
        iterate(page.get("line_items").get(0)));
    assertTrue(page.get("methods").size() > 0);
    paid(merchant, v.get("id").asText(), null);
    JsonNode payment = publicRead(v).get("payments").get(0);
    assertEquals(
        List.of("amount", "amount_refunded", "method", "succeeded_at", "receipt_url"),
        iterate(payment));
    assertTrue(payment.get("receipt_url").asText().startsWith(BASE + "/receipts/"));
  }

  @Test
  void anInvoicePaymentStaysInItsEnvironmentCurrencyAndCustomer() {
    String merchant = IdType.MERCHANT.generate();
    String id = sent(merchant, "{" + lines(line("A", "1", "100")) + "}").get("id").asText();
    ObjectNode live = Json.mapper().createObjectNode();
    live.put("invoice_id", id);
    live.put("method", "card");
    CommandReply otherEnvironment =
        service()
            .dispatch(
                new Command(
                    IdType.COMMAND.generate(),
                    "payments.create",
                    merchant,
                    "live",
                    IdType.PAYMENT.generate(),
                    live,
                    Instant.now()));
    assertEquals(404, otherEnvironment.status(), otherEnvironment.body().toString());
    ObjectNode usd = Json.mapper().createObjectNode();
    usd.put("invoice_id", id);
    usd.put("method", "card");
    usd.put("currency", "USD");
    CommandReply currency =
        service()
            .dispatch(
                new Command(
                    IdType.COMMAND.generate(),
                    "payments.create",
                    merchant,
                    "test",
                    IdType.PAYMENT.generate(),
                    usd,
                    Instant.now()));
    assertEquals(400, currency.status());
    assertTrue(currency.body().get("error").get("issues").has("currency"));
    assertEquals("sent", invoice(merchant, id).get("status").asText(), "nothing was paid");
  }

  private static List<String> iterate(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }

  @Test
  void aSecondPaymentForTheSameRemainingIsRefundedWhenItSucceeds() {
    String merchant = IdType.MERCHANT.generate();
    String id = sent(merchant, "{" + lines(line("Cake", "1", "100")) + "}").get("id").asText();
    // Two tabs, two pending payments of the whole remaining: neither moves the invoice yet.
    String first = pending(merchant, id, null);
    String second = pending(merchant, id, null);
    succeed(merchant, first);
    assertEquals("paid", invoice(merchant, id).get("status").asText());

    succeed(merchant, second); // delivered twice: one refund
    JsonNode v = invoice(merchant, id);
    assertEquals("paid", v.get("status").asText());
    assertMoney("100", v.get("amount_paid"));
    assertMoney("0", v.get("amount_remaining"));
    assertEquals(List.of("100.00 duplicate succeeded"), refundsOf(second));
    assertEquals("refunded", payment(merchant, second).get("status").asText());
    assertEquals(List.of(), refundsOf(first));
    assertEquals(
        List.of("payment.succeeded"),
        service().eventTypes(second).stream().filter(t -> t.endsWith("succeeded")).toList(),
        "succeeded once under the redelivered command");
  }

  @Test
  void onlyThePartAboveTheRemainingIsRefunded() {
    String merchant = IdType.MERCHANT.generate();
    String id =
        sent(merchant, "{" + lines(line("A", "1", "100")) + ",\"allow_partial_payment\":true}")
            .get("id")
            .asText();
    String sixty = pending(merchant, id, "60");
    String all = pending(merchant, id, "100");
    succeed(merchant, sixty);
    succeed(merchant, all);
    JsonNode v = invoice(merchant, id);
    assertEquals("paid", v.get("status").asText());
    assertMoney("100", v.get("amount_paid"));
    assertEquals(all, v.get("payment_id").asText());
    assertEquals(List.of("60.00 duplicate succeeded"), refundsOf(all));
    JsonNode kept = payment(merchant, all);
    assertEquals("succeeded", kept.get("status").asText(), "40.00 of it is kept");
    JsonNode shown = publicRead(v).get("payments");
    assertEquals(2, shown.size());
    assertMoney("0", shown.get(0).get("amount_refunded"));
    assertMoney("60", shown.get(1).get("amount_refunded"));
  }

  @Test
  void aPaymentCreatedBeforeAVoidIsRefundedInFullWhenItSucceeds() {
    String merchant = IdType.MERCHANT.generate();
    String id = sent(merchant, "{" + lines(line("A", "1", "100")) + "}").get("id").asText();
    String late = pending(merchant, id, null);
    assertEquals(200, command(CommandTypes.INVOICES_VOID, merchant, id, null).status());
    succeed(merchant, late);
    JsonNode v = invoice(merchant, id);
    assertEquals("void", v.get("status").asText());
    assertMoney("0", v.get("amount_paid"));
    assertEquals(List.of("100.00 duplicate succeeded"), refundsOf(late));
    assertEquals("refunded", payment(merchant, late).get("status").asText());
  }

  private CommandReply activationFee(String merchant, String body) {
    return command(CommandTypes.ACTIVATION_FEES_CREATE, merchant, IdType.INVOICE.generate(), body);
  }

  @Test
  void anActivationFeeIsPaidToThePlatformAndOnlyTheOperatorChangesIt() {
    String merchant = IdType.MERCHANT.generate();
    CommandReply created =
        activationFee(merchant, "{\"amount\":5000,\"currency\":\"PHP\",\"notes\":\"One-time\"}");
    assertEquals(201, created.status(), created.body().toString());
    JsonNode fee = created.body();
    String id = fee.get("id").asText();
    assertEquals("activation_fee", fee.get("kind").asText());
    assertEquals("sent", fee.get("status").asText());
    assertTrue(fee.get("number").isNull(), "never numbered");
    assertTrue(fee.get("sent_at").isNumber());
    assertEquals("Activation fee", fee.get("line_items").get(0).get("description").asText());
    assertMoney("5000", fee.get("amount"));
    assertFalse(fee.get("allow_partial_payment").asBoolean());

    // The merchant reads it but cannot change it.
    for (String type :
        List.of(
            CommandTypes.INVOICES_UPDATE, CommandTypes.INVOICES_SEND, CommandTypes.INVOICES_VOID)) {
      CommandReply refused = command(type, merchant, id, "{\"notes\":\"mine now\"}");
      assertEquals(400, refused.status(), type);
      assertEquals("invalid_state", refused.body().get("error").get("code").asText(), type);
    }

    // One open payment at a time; its fee is its whole amount.
    String first = pending(merchant, id, null);
    assertMoney("5000", payment(merchant, first).get("fee_amount"));
    assertEquals("Activation fee", payment(merchant, first).get("description").asText());
    CommandReply second = pay(merchant, id, null);
    assertEquals(409, second.status());
    assertEquals("conflict", second.body().get("error").get("code").asText());
    CommandReply voidWhileOpen = command(CommandTypes.ACTIVATION_FEES_VOID, merchant, id, null);
    assertEquals(409, voidWhileOpen.status(), voidWhileOpen.body().toString());

    succeed(merchant, first);
    JsonNode paid = payment(merchant, first);
    assertMoney("0", paid.get("net_amount"));
    assertMoney("5000", paid.get("fee_amount"));
    assertEquals("paid", invoice(merchant, id).get("status").asText());
    CommandReply refund =
        command(
            "refunds.create",
            merchant,
            IdType.REFUND.generate(),
            "{\"payment\":\"" + first + "\"}");
    assertEquals(400, refund.status());
    assertEquals("invalid_state", refund.body().get("error").get("code").asText());
    assertEquals(List.of(), refundsOf(first));
    assertEquals(400, command(CommandTypes.ACTIVATION_FEES_VOID, merchant, id, null).status());

    // The operator withdraws an unpaid one, and never a merchant's own invoice.
    String unpaid =
        activationFee(merchant, "{\"amount\":100,\"currency\":\"PHP\"}").body().get("id").asText();
    CommandReply withdrawn = command(CommandTypes.ACTIVATION_FEES_VOID, merchant, unpaid, null);
    assertEquals(200, withdrawn.status());
    assertEquals("void", withdrawn.body().get("status").asText());
    String own = sent(merchant, "{" + lines(line("A", "1", "100")) + "}").get("id").asText();
    assertEquals(400, command(CommandTypes.ACTIVATION_FEES_VOID, merchant, own, null).status());
    assertEquals(
        404,
        command(CommandTypes.ACTIVATION_FEES_VOID, IdType.MERCHANT.generate(), unpaid, null)
            .status());
    CommandReply pastDue =
        activationFee(
            merchant, "{\"amount\":100,\"currency\":\"PHP\",\"due_date\":\"2001-01-01\"}");
    assertEquals(400, pastDue.status());
  }
}
