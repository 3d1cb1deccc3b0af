package ph.payments.payments.customers.web;

import com.fasterxml.jackson.databind.node.ObjectNode;
import ph.payments.payments.customers.domain.Address;
import ph.payments.payments.customers.domain.Customer;
import ph.payments.platform.json.Json;

/** The customer resource exactly as SPEC part 2 lists its fields, in that order. */
public final class CustomerJson {

  /** Where a receipt-history URL's token goes, after the public base URL. */
  public static final String RECEIPTS_HISTORY_PATH = "/receipts/history/";

  /**
   * @param publicBaseUrl public base of hosted pages, e.g. {@code http://localhost:8080}
   */
  public static ObjectNode of(Customer c, String publicBaseUrl) {
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("id", c.id());
    json.put("object", "customer");
    json.put("environment", c.environment());
    json.put("name", c.name());
    json.put("email", c.email());
    json.put("phone", c.phone());
    Address a = c.address();
    if (a == null) {
      json.putNull("address");
    } else {
      ObjectNode address = json.putObject("address");
      address.put("line1", a.line1());
      address.put("line2", a.line2());
      address.put("city", a.city());
      address.put("region", a.region());
      address.put("postal_code", a.postalCode());
      address.put("country", a.country());
    }
    json.set("metadata", c.metadata());
    json.put("receipts_history_url", receiptsHistoryUrl(c, publicBaseUrl));
    json.put("created", c.createdAt().getEpochSecond());
    json.put("updated", c.updatedAt().getEpochSecond());
    return json;
  }

  public static String receiptsHistoryUrl(Customer c, String publicBaseUrl) {
    return publicBaseUrl + RECEIPTS_HISTORY_PATH + c.receiptsToken();
  }

  private CustomerJson() {}
}
