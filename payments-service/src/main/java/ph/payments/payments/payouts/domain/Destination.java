package ph.payments.payments.payouts.domain;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Where a payout goes, read from the merchant's {@code destination} (SPEC part 4): a wallet {@code
 * {account_no}}, or a bank account {@code {account_no, bank_code, first_name, last_name}} or {@code
 * {account_no, bankCode, account_name}}. The gateway validates the shapes field by field; this
 * reads what the owner needs and refuses (never throws on) anything else, so a malformed command is
 * answered instead of retried forever.
 *
 * @param bankCodeField {@code bank_code} or {@code bankCode}, as the merchant wrote it (issues name
 *     it); null for wallets
 * @param bankCode the registry code, null for wallets
 */
public record Destination(String accountNo, String bankCodeField, String bankCode) {

  public static final Set<String> WALLET_METHODS = Set.of("ewallet1");
  public static final Set<String> BANK_METHODS = Set.of("bank_transfer", "bank_transfer_nrt");

  /** The outcome of reading a destination. */
  public sealed interface Read permits Valid, Invalid {}

  public record Valid(Destination destination) implements Read {}

  /** Field issues, named {@code destination.<field>}. */
  public record Invalid(Map<String, String> issues) implements Read {}

  public static Read read(String method, JsonNode destination) {
    Map<String, String> issues = new LinkedHashMap<>();
    if (destination == null || !destination.isObject()) {
      return new Invalid(Map.of("destination", "must be an object"));
    }
    String accountNo = text(destination, "account_no");
    if (accountNo == null) {
      issues.put("destination.account_no", "is required");
    }
    String field = null;
    String code = null;
    if (BANK_METHODS.contains(method)) {
      boolean snake = destination.has("bank_code");
      boolean camel = destination.has("bankCode");
      if (snake == camel) {
        issues.put(
            "destination.bank_code",
            snake ? "give bank_code or bankCode, not both" : "is required");
      } else {
        field = snake ? "bank_code" : "bankCode";
        code = text(destination, field);
        if (code == null) {
          issues.put("destination." + field, "must be a bank code of GET /v1/payout-banks");
        }
      }
    }
    return issues.isEmpty()
        ? new Valid(new Destination(accountNo, field, code))
        : new Invalid(issues);
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value != null && value.isTextual() && !value.textValue().isBlank()
        ? value.textValue()
        : null;
  }
}
