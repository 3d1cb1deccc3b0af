package ph.payments.gateway.pages;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Error;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.time.Clock;
import java.time.YearMonth;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import ph.payments.contracts.commands.CommandTypes;
import ph.payments.gateway.edge.ClientAddressLimited;
import ph.payments.gateway.edge.ClientAddressLimits;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.json.Json;

/**
 * The hosted checkout page ({@code checkout_url}, docs/hosted-pages.md), one shape per method, its
 * status poll, and in test mode the sandbox buttons and card form that drive the sandbox provider
 * through its signed callbacks ({@code checkout.sandbox_action}). A live payment's page has no
 * sandbox button or card form, and their POSTs are refused here before any command is sent (and by
 * payments-service again).
 *
 * <p>A card number never leaves this class: it is mapped to a sandbox scenario and only the
 * scenario and the last four digits travel. It is not logged, stored or echoed back.
 */
@Controller
@ExecuteOn(TaskExecutors.BLOCKING)
public class CheckoutPages {

  static final Set<String> QR_METHODS = Set.of("rail1_qr", "ewallet1_qr");
  static final Set<String> OPEN = Set.of("pending", "processing");

  /** The sandbox's documented test cards and what each does. */
  static final Map<String, String> TEST_CARDS =
      Map.of(
          "4242424242424242", "succeeds",
          "4000000000000002", "card_declined",
          "4000000000009995", "insufficient_funds",
          "4000000000003220", "challenge");

  private final PublicReads reads;
  private final Pages pages;
  private final FormTokens tokens;
  private final PageCommands commands;
  private final Clock clock;

  public CheckoutPages(
      PublicReads reads, Pages pages, FormTokens tokens, PageCommands commands, Clock clock) {
    this.reads = reads;
    this.pages = pages;
    this.tokens = tokens;
    this.commands = commands;
    this.clock = clock;
  }

  @ClientAddressLimited(ClientAddressLimits.Kind.CHECKOUT)
  @Get(uri = "/checkout/{token}", produces = MediaType.TEXT_HTML)
  public HttpResponse<String> page(HttpRequest<?> request, String token) {
    Optional<JsonNode> payment = reads.checkout(token);
    if (payment.isEmpty()) {
      return pages.notFound();
    }
    if (bearsReceipt(payment.get())) {
      return pages.seeOther("/receipts/" + token);
    }
    return render(request, HttpStatus.OK, token, payment.get(), null);
  }

  /** The status the page's script polls; it reloads the page when this changes. */
  @ClientAddressLimited(ClientAddressLimits.Kind.CHECKOUT)
  @Get(uri = "/checkout/{token}/status", produces = MediaType.APPLICATION_JSON)
  public HttpResponse<String> status(String token) {
    JsonNode payment = reads.checkout(token).orElseThrow(() -> ApiException.notFound("checkout"));
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("status", payment.path("status").asText());
    return Pages.secured(HttpResponse.ok(Json.toText(json)))
        .contentType(MediaType.APPLICATION_JSON_TYPE);
  }

  /** A sandbox button: what the customer or their wallet or bank did (test mode only). */
  @ClientAddressLimited(ClientAddressLimits.Kind.PAGE_FORM)
  @Post(
      uri = "/checkout/{token}/sandbox",
      consumes = MediaType.APPLICATION_FORM_URLENCODED,
      produces = MediaType.TEXT_HTML)
  public HttpResponse<String> sandbox(
      HttpRequest<?> request, String token, @Nullable @Body Map<String, String> form) {
    Map<String, String> fields = form == null ? Map.of() : form;
    Optional<String> formToken = tokens.verified(request, fields.get(FormTokens.FIELD));
    if (formToken.isEmpty()) {
      return pages.invalidToken();
    }
    Optional<JsonNode> found = reads.checkout(token);
    if (found.isEmpty() || !isTest(found.get())) {
      // A live payment has no sandbox: no button is shown, and a forged one reaches nothing.
      return pages.notFound();
    }
    JsonNode payment = found.get();
    String action = fields.getOrDefault("action", "");
    if (!OPEN.contains(payment.path("status").asText())) {
      // Decided meanwhile (or this is the same form sent twice): show where the payment stands.
      return pages.seeOther("/checkout/" + token);
    }
    if (!sandboxActions(payment).contains(action) && !challengeActions(payment).contains(action)) {
      return render(
          request, HttpStatus.BAD_REQUEST, token, payment, "That action is not available.");
    }
    ObjectNode body = Json.mapper().createObjectNode().put("action", action);
    return afterCommand(request, token, payment, body, formToken.get(), "/sandbox");
  }

  /** The sandbox card form (test mode only): the number picks a scenario and goes no further. */
  @ClientAddressLimited(ClientAddressLimits.Kind.PAGE_FORM)
  @Post(
      uri = "/checkout/{token}/card",
      consumes = MediaType.APPLICATION_FORM_URLENCODED,
      produces = MediaType.TEXT_HTML)
  public HttpResponse<String> card(
      HttpRequest<?> request, String token, @Nullable @Body Map<String, String> form) {
    Map<String, String> fields = form == null ? Map.of() : form;
    Optional<String> formToken = tokens.verified(request, fields.get(FormTokens.FIELD));
    if (formToken.isEmpty()) {
      return pages.invalidToken();
    }
    Optional<JsonNode> found = reads.checkout(token);
    if (found.isEmpty() || !isTest(found.get())) {
      return pages.notFound();
    }
    JsonNode payment = found.get();
    if (!OPEN.contains(payment.path("status").asText())) {
      return pages.seeOther("/checkout/" + token);
    }
    if (!"card".equals(payment.path("method").asText()) || !cardFormShown(payment)) {
      return render(request, HttpStatus.BAD_REQUEST, token, payment, "The card form is closed.");
    }
    String number = fields.getOrDefault("card_number", "").replaceAll("[\\s-]", "");
    String problem = cardProblem(number, fields.get("expiry"), fields.get("cvc"));
    if (problem != null) {
      return render(request, HttpStatus.BAD_REQUEST, token, payment, problem);
    }
    String scenario = TEST_CARDS.get(number);
    if (scenario == null) {
      return render(
          request,
          HttpStatus.BAD_REQUEST,
          token,
          payment,
          "In test mode only the test cards below can pay. No real card is charged.");
    }
    ObjectNode body =
        Json.mapper()
            .createObjectNode()
            .put("action", "card")
            .put("scenario", scenario)
            .put("card_last4", number.substring(number.length() - 4));
    return afterCommand(request, token, payment, body, formToken.get(), "/card");
  }

  @Error(exception = ApiException.class)
  public HttpResponse<String> failed(HttpRequest<?> request, ApiException e) {
    if (request.getPath().endsWith("/status")) {
      return Pages.secured(HttpResponse.<String>status(HttpStatus.valueOf(e.httpStatus())))
          .contentType(MediaType.APPLICATION_JSON_TYPE)
          .body(Json.toText(e.envelope()));
    }
    return pages.error(
        HttpStatus.valueOf(e.httpStatus()),
        e.code().code(),
        e.httpStatus() == 404 ? "Page not found" : "Please try again",
        e.httpStatus() == 404
            ? "This payment page does not exist."
            : "We could not finish that just now. Nothing was charged twice: go back and try again.",
        false);
  }

  private HttpResponse<String> afterCommand(
      HttpRequest<?> request,
      String token,
      JsonNode payment,
      ObjectNode body,
      String formToken,
      String suffix) {
    PageCommands.Reply reply =
        commands.send(
            payment.path("merchant_id").asText(),
            payment.path("environment").asText(),
            CommandTypes.CHECKOUT_SANDBOX_ACTION,
            payment.path("reference").asText(),
            body,
            formToken,
            "/checkout/" + token + suffix);
    if (reply.ok() || "invalid_state".equals(reply.code())) {
      // Done, or overtaken (paid, expired meanwhile): the page shows where the payment stands.
      return pages.seeOther("/checkout/" + token);
    }
    if (reply.status() == 404) {
      return pages.notFound();
    }
    return render(request, HttpStatus.BAD_REQUEST, token, payment, reply.message());
  }

  private HttpResponse<String> render(
      HttpRequest<?> request, HttpStatus status, String token, JsonNode p, String formError) {
    boolean test = isTest(p);
    String state = p.path("status").asText();
    String method = p.path("method").asText();
    String merchant = reads.merchantName(p.path("merchant_id").asText(null));
    String amount = Format.money(p.path("amount").decimalValue(), p.path("currency").asText());
    String cookie = tokens.cookieOf(request);

    Map<String, Object> m = new HashMap<>();
    m.put("test", test);
    m.put("token", token);
    m.put("csrf", tokens.fieldFor(cookie));
    m.put("merchant", merchant.isEmpty() ? "Checkout" : merchant);
    m.put("amount", amount);
    m.put("description", text(p, "description"));
    m.put("status", state);
    m.put(
        "statusLabel",
        challenged(p) && OPEN.contains(state)
            ? "Waiting for your bank's confirmation"
            : statusLabel(state));
    m.put("open", OPEN.contains(state));
    m.put("method", method);
    m.put("methodLabel", Format.method(method));
    // Once the customer has paid (processing) the QR has done its job; showing it again invites
    // a second scan.
    m.put("qr", "pending".equals(state) && p.path("qr_code").isTextual());
    m.put("appLink", OPEN.contains(state) ? Format.appUrl(text(p, "app_link")) : null);
    m.put("kind", kind(method));
    m.put("challenge", test && OPEN.contains(state) && challenged(p));
    m.put("cardForm", test && "card".equals(method) && cardFormShown(p));
    m.put("liveCard", !test && "card".equals(method) && OPEN.contains(state));
    m.put("testCards", testCards());
    m.put("sandboxActions", test ? buttons(sandboxActions(p)) : List.of());
    m.put("transfer", OPEN.contains(state) ? transfer(p) : null);
    m.put("stateMessage", stateMessage(state, p, merchant));
    m.put("formError", formError);
    m.put("cancelUrl", OPEN.contains(state) ? Format.webUrl(text(p, "cancel_url")) : null);
    m.put(
        "expiresAt",
        OPEN.contains(state) && p.path("expires_at").canConvertToLong()
            ? Format.time(p.path("expires_at").asLong())
            : null);
    return tokens.set(pages.render(status, "checkout", m), cookie);
  }

  private static boolean isTest(JsonNode payment) {
    return "test".equals(payment.path("environment").asText());
  }

  private static boolean bearsReceipt(JsonNode payment) {
    String status = payment.path("status").asText();
    return status.equals("succeeded") || status.equals("refunded");
  }

  private static boolean challenged(JsonNode payment) {
    return "3ds_challenge".equals(payment.path("next_action").asText());
  }

  /** The card form shows for an open card payment whose card has not been tried. */
  private static boolean cardFormShown(JsonNode payment) {
    return "pending".equals(payment.path("status").asText()) && !challenged(payment);
  }

  /** The sandbox buttons of an open test payment, by method. */
  static List<String> sandboxActions(JsonNode payment) {
    if (!isTest(payment) || !OPEN.contains(payment.path("status").asText())) {
      return List.of();
    }
    return switch (payment.path("method").asText()) {
      case "rail1_qr", "bank_transfer" -> List.of("pay", "decline");
      case "ewallet1_qr" -> List.of("pay", "approve", "decline");
      case "ewallet1" -> List.of("approve", "decline");
      default -> List.of();
    };
  }

  private static List<String> challengeActions(JsonNode payment) {
    return isTest(payment) && OPEN.contains(payment.path("status").asText()) && challenged(payment)
        ? List.of("3ds_complete", "3ds_fail")
        : List.of();
  }

  private static List<Map<String, Object>> buttons(List<String> actions) {
    List<Map<String, Object>> buttons = new ArrayList<>();
    for (String action : actions) {
      String label =
          switch (action) {
            case "pay" -> "Simulate a successful payment";
            case "approve" -> "Approve in the sandbox wallet";
            default -> "Decline the payment";
          };
      buttons.add(Map.of("value", action, "label", label, "primary", !action.equals("decline")));
    }
    return buttons;
  }

  private static List<Map<String, Object>> testCards() {
    return List.of(
        Map.of("number", "4242 4242 4242 4242", "outcome", "succeeds"),
        Map.of("number", "4000 0000 0000 0002", "outcome", "is declined (card_declined)"),
        Map.of("number", "4000 0000 0000 9995", "outcome", "is declined (insufficient_funds)"),
        Map.of("number", "4000 0000 0000 3220", "outcome", "asks for a 3-D Secure challenge"));
  }

  private static String kind(String method) {
    if (QR_METHODS.contains(method)) {
      return "qr";
    }
    return switch (method) {
      case "ewallet1" -> "wallet";
      case "card" -> "card";
      case "bank_transfer", "bank_transfer_nrt" -> "bank";
      default -> "other";
    };
  }

  private static Map<String, Object> transfer(JsonNode payment) {
    JsonNode t = payment.path("transfer");
    if (!t.isObject()) {
      return null;
    }
    Map<String, Object> transfer = new HashMap<>();
    transfer.put("bank", t.path("bank").asText());
    transfer.put("accountName", t.path("account_name").asText());
    transfer.put("accountNumber", t.path("account_number").asText());
    transfer.put("reference", t.path("reference").asText());
    return transfer;
  }

  private static String statusLabel(String status) {
    return switch (status) {
      case "pending" -> "Waiting for payment";
      case "processing" -> "Payment received, confirming";
      case "failed" -> "Payment failed";
      case "expired" -> "Expired";
      case "succeeded" -> "Paid";
      case "refunded" -> "Refunded";
      default -> status;
    };
  }

  private static String stateMessage(String status, JsonNode payment, String merchant) {
    String shop = merchant.isEmpty() ? "the shop" : merchant;
    return switch (status) {
      case "failed" -> {
        String why = payment.path("failure").path("message").asText("");
        yield (why.isEmpty() ? "This payment did not go through." : why)
            + " No money was taken. To try again, ask "
            + shop
            + " for a new payment link.";
      }
      case "expired" ->
          "This checkout expired before it was paid. No money was taken. Ask "
              + shop
              + " for a new payment link.";
      default -> null;
    };
  }

  /** What is wrong with the card details, or null; the number is never part of the message. */
  String cardProblem(String number, String expiry, String cvc) {
    if (!number.matches("[0-9]{12,19}") || !luhn(number)) {
      return "Enter a valid card number.";
    }
    if (expiry == null || !expiry.trim().matches("(0[1-9]|1[0-2]) ?/ ?[0-9]{2}")) {
      return "Enter the expiry date as MM/YY.";
    }
    String[] parts = expiry.replace(" ", "").split("/");
    YearMonth expires = YearMonth.of(2000 + Integer.parseInt(parts[1]), Integer.parseInt(parts[0]));
    if (expires.isBefore(YearMonth.now(clock.withZone(Format.MANILA)))) {
      return "This card has expired.";
    }
    if (cvc == null || !cvc.trim().matches("[0-9]{3,4}")) {
      return "Enter the 3 or 4 digit security code (CVC).";
    }
    return null;
  }

  static boolean luhn(String digits) {
    int sum = 0;
    boolean twice = false;
    for (int i = digits.length() - 1; i >= 0; i--) {
      int d = digits.charAt(i) - '0';
      if (twice) {
        d *= 2;
        if (d > 9) {
          d -= 9;
        }
      }
      sum += d;
      twice = !twice;
    }
    return sum % 10 == 0;
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.path(field);
    return value.isTextual() && !value.asText().isEmpty() ? value.asText() : null;
  }
}
