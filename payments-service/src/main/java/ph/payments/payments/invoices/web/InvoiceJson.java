package ph.payments.payments.invoices.web;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.List;
import ph.payments.payments.invoices.domain.Invoice;
import ph.payments.payments.invoices.domain.LineItem;
import ph.payments.platform.json.Json;

/** The invoice resource as SPEC part 2 lists its fields, in that order. */
public final class InvoiceJson {

  /** Where an invoice's token goes, after the public base URL (plan of issue 17). */
  public static final String PAGE_PATH = "/i/";

  public static ObjectNode of(Invoice v, String publicBaseUrl) {
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("id", v.id());
    json.put("object", "invoice");
    json.put("environment", v.environment());
    json.put("kind", v.kind().wire());
    json.put("number", v.number());
    json.put("status", v.status().wire());
    json.put("amount", v.amount());
    json.put("subtotal", v.subtotal());
    json.put("tax_amount", v.taxAmount());
    json.put("discount_amount", v.discountAmount());
    json.put("currency", v.currency());
    json.put("description", v.description());
    lineItems(json.putArray("line_items"), v.lineItems());
    json.put("customer_id", v.customerId());
    json.put("due_date", v.dueDate() == null ? null : v.dueDate().toString());
    json.put("notes", v.notes());
    json.put("terms", v.terms());
    json.put("allow_partial_payment", v.allowPartialPayment());
    json.put("amount_paid", v.amountPaid());
    json.put("amount_remaining", v.amountRemaining());
    json.put("deposit_rate", v.depositRate());
    json.put("deposit_due_at", seconds(v.depositDueAt()));
    json.put("balance_due_at", seconds(v.balanceDueAt()));
    json.put("shipment_id", v.shipmentId());
    json.put("forfeited_at", seconds(v.forfeitedAt()));
    json.put("issued_at", seconds(v.issuedAt()));
    json.put("sent_at", seconds(v.sentAt()));
    json.put("paid_at", seconds(v.paidAt()));
    json.put("void_at", seconds(v.voidAt()));
    json.put("payment_id", v.paymentId());
    json.set("metadata", Json.tree(v.metadataJson()));
    json.put("url", url(publicBaseUrl, v.token()));
    return json;
  }

  static void lineItems(ArrayNode array, List<LineItem> lines) {
    for (LineItem line : lines) {
      ObjectNode item = array.addObject();
      item.put("description", line.description());
      item.put("quantity", line.quantity());
      item.put("unit_amount", line.unitAmount());
      item.put("amount", line.amount());
    }
  }

  /** The invoice's public page, {@code {base}/i/{token}}. */
  public static String url(String publicBaseUrl, String token) {
    return publicBaseUrl + PAGE_PATH + token;
  }

  static Long seconds(Instant instant) {
    return instant == null ? null : instant.getEpochSecond();
  }

  private InvoiceJson() {}
}
