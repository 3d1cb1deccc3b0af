package ph.payments.gateway.payouts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import ph.payments.gateway.web.Fields;

/**
 * A payout's {@code destination}, checked for its method (SPEC part 4, docs/refunds-payouts.md).
 * Issues are named {@code destination.<field>}.
 *
 * <ul>
 *   <li>{@code ewallet1}: {@code {account_no}}, the wallet's Philippine mobile number, 11 digits
 *       starting {@code 09}.
 *   <li>{@code bank_transfer}, {@code bank_transfer_nrt}: {@code {account_no, bank_code,
 *       first_name, last_name}} or {@code {account_no, bankCode, account_name}}; the account number
 *       is 6 to 20 digits (the receiving institution judges the rest). Whether the bank code is an
 *       active code of the registry is payments-service's to say: it owns the registry.
 *   <li>Any other method: an object; payments-service answers {@code no_route} for methods nobody
 *       pays out with.
 * </ul>
 */
final class Destinations {

  static final Set<String> WALLET_METHODS = Set.of("ewallet1");
  static final Set<String> BANK_METHODS = Set.of("bank_transfer", "bank_transfer_nrt");

  private static final Pattern MOBILE = Pattern.compile("^09[0-9]{9}$");
  private static final Pattern ACCOUNT = Pattern.compile("^[0-9]{6,20}$");
  private static final Pattern BANK_CODE = Pattern.compile("^[A-Za-z0-9]{1,20}$");
  private static final List<String> NAMED =
      List.of("account_no", "bank_code", "first_name", "last_name");
  private static final List<String> ACCOUNT_NAME =
      List.of("account_no", "bankCode", "account_name");

  static void check(Fields body, String method) {
    ObjectNode destination = body.optionalObject("destination");
    if (destination == null) {
      if (!body.has("destination")) {
        body.issue("destination", "is required");
      }
      return;
    }
    if (method == null) {
      return; // method's own issue is reported; the shape depends on it
    }
    if (WALLET_METHODS.contains(method)) {
      unknownFields(body, destination, List.of("account_no"), "{account_no}");
      String account = text(body, destination, "account_no");
      if (account != null && !MOBILE.matcher(account).matches()) {
        body.issue(
            "destination.account_no", "must be the wallet's mobile number: 11 digits starting 09");
      }
    } else if (BANK_METHODS.contains(method)) {
      bank(body, destination);
    }
  }

  private static void bank(Fields body, ObjectNode destination) {
    boolean snake = destination.has("bank_code");
    boolean camel = destination.has("bankCode");
    if (snake && camel) {
      body.issue(
          "destination",
          "use either bank_code (with first_name, last_name) or bankCode"
              + " (with account_name), not both");
      return;
    }
    if (!snake && !camel) {
      body.issue("destination.bank_code", "is required (or bankCode with account_name)");
      text(body, destination, "account_no");
      return;
    }
    List<String> shape = snake ? NAMED : ACCOUNT_NAME;
    unknownFields(body, destination, shape, "{" + String.join(", ", shape) + "}");
    String account = text(body, destination, "account_no");
    if (account != null && !ACCOUNT.matcher(account).matches()) {
      body.issue("destination.account_no", "must be 6 to 20 digits");
    }
    String codeField = snake ? "bank_code" : "bankCode";
    String code = text(body, destination, codeField);
    if (code != null && !BANK_CODE.matcher(code).matches()) {
      body.issue("destination." + codeField, "must be a code of GET /v1/payout-banks");
    }
    if (snake) {
      name(body, destination, "first_name", 100);
      name(body, destination, "last_name", 100);
    } else {
      name(body, destination, "account_name", 200);
    }
  }

  private static void unknownFields(
      Fields body, ObjectNode destination, List<String> allowed, String shape) {
    Iterator<String> names = destination.fieldNames();
    while (names.hasNext()) {
      String name = names.next();
      if (!allowed.contains(name)) {
        body.issue("destination." + name, "unknown field; this method's destination is " + shape);
      }
    }
  }

  private static void name(Fields body, ObjectNode destination, String field, int max) {
    String value = text(body, destination, field);
    if (value != null && (value.isBlank() || value.codePointCount(0, value.length()) > max)) {
      body.issue("destination." + field, "must be 1 to " + max + " characters, not blank");
    }
  }

  /** The field's text, or null after recording why it is missing or not a string. */
  private static String text(Fields body, ObjectNode destination, String field) {
    JsonNode value = destination.get(field);
    if (value == null || value.isNull()) {
      body.issue("destination." + field, "is required");
      return null;
    }
    if (!value.isTextual()) {
      body.issue("destination." + field, "must be a string");
      return null;
    }
    return value.textValue();
  }

  private Destinations() {}
}
