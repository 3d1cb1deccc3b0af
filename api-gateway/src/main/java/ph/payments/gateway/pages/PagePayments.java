package ph.payments.gateway.pages;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import jakarta.inject.Singleton;
import ph.payments.gateway.payments.PaymentsController;
import ph.payments.platform.ids.IdType;

/**
 * A payment created by a hosted page's form (a link's, an invoice's): {@code payments.create}
 * through {@link PageCommands} for the merchant and environment of the resource the page shows
 * (from the owner's public read, never the form), with the merchant's name as the API adds it. The
 * answers every such page gives alike are made here; the owner's refusals go back to the page,
 * which shows each in its own words.
 */
@Singleton
public class PagePayments {

  /** What came of the form. */
  public sealed interface Outcome {}

  /** The page's answer: to the checkout, or a page that is the same for every form. */
  public record Answered(HttpResponse<String> response) implements Outcome {}

  /** payments-service refused the payment; the page shows why. */
  public record Refused(PageCommands.Reply reply) implements Outcome {}

  private final PublicReads reads;
  private final Pages pages;
  private final PageCommands commands;

  public PagePayments(PublicReads reads, Pages pages, PageCommands commands) {
    this.reads = reads;
    this.pages = pages;
    this.commands = commands;
  }

  /**
   * @param resource the public read of what the page shows ({@code merchant_id}, {@code
   *     environment})
   * @param body the payment's body (e.g. {@code payment_link_id} or {@code invoice_id}, amount,
   *     method); {@code merchant_name} is added
   * @param formToken the form's verified token: the command's idempotency key
   * @param route the page's path, what the idempotency key is bound to
   */
  public Outcome create(JsonNode resource, ObjectNode body, String formToken, String route) {
    String merchantId = resource.path("merchant_id").asText();
    boolean test = "test".equals(resource.path("environment").asText());
    body.put("merchant_name", reads.merchantName(merchantId));
    PageCommands.Reply reply =
        commands.send(
            merchantId,
            resource.path("environment").asText(),
            PaymentsController.CREATE,
            IdType.PAYMENT.generate(),
            body,
            formToken,
            route);
    if (reply.ok() && reply.body().path("checkout_url").isTextual()) {
      String url = reply.body().get("checkout_url").asText();
      int at = url.indexOf("/checkout/");
      return new Answered(pages.seeOther(at < 0 ? url : url.substring(at)));
    }
    if (reply.ok()) {
      // Accepted, not answered in time: the same form sent again gets its outcome.
      return new Answered(
          pages.error(
              HttpStatus.SERVICE_UNAVAILABLE,
              "internal_error",
              "Almost there",
              "Your payment is being set up. Go back and press Pay again: you will not be charged"
                  + " twice.",
              test));
    }
    return switch (reply.code()) {
      case "not_found" -> new Answered(pages.notFound());
      case "conflict" ->
          new Answered(
              pages.error(
                  HttpStatus.CONFLICT,
                  "conflict",
                  "Please reload the page",
                  "This form was already sent with other details. Reload the page to start again.",
                  test));
      default -> new Refused(reply);
    };
  }
}
