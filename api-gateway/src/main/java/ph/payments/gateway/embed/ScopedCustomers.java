package ph.payments.gateway.embed;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.http.HttpResponse;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Map;
import ph.payments.gateway.embed.EmbedTokenRequest.ScopeField;
import ph.payments.gateway.routing.Owner;
import ph.payments.gateway.routing.ReadRouter;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;

/**
 * Finds the customer a token is to be scoped to, among the key's merchant's customers in the key's
 * environment, through payments-service's internal customer reads (it owns the directory). Asked
 * before the token is made and outside any transaction. Messages never repeat the scope value.
 */
@Singleton
public class ScopedCustomers {

  private final ReadRouter reads;

  public ScopedCustomers(ReadRouter reads) {
    this.reads = reads;
  }

  /** The customer found, or the refusal the token request is answered with. */
  public sealed interface Resolution {
    record Found(String customerId) implements Resolution {}

    record Refused(ErrorCode code, String message) implements Resolution {}
  }

  /**
   * @throws ApiException 503 when payments-service cannot answer (nothing is recorded; retry)
   */
  public Resolution resolve(String merchantId, String environment, ScopeField field, String value) {
    return field == ScopeField.CUSTOMER_ID
        ? byId(merchantId, environment, value)
        : byExternalId(merchantId, environment, value);
  }

  private Resolution byId(String merchantId, String environment, String customerId) {
    if (!IdType.CUSTOMER.matches(customerId)) {
      return notFound();
    }
    HttpResponse<String> answer =
        reads.get(
            merchantId, environment, Owner.PAYMENTS, "/internal/customers/" + customerId, Map.of());
    int status = answer.getStatus().getCode();
    if (status == 200) {
      return new Resolution.Found(customerId);
    }
    // 401 is the owner's answer for a customer of the other environment.
    if (status == 404 || status == 401) {
      return notFound();
    }
    throw unavailable();
  }

  private Resolution byExternalId(String merchantId, String environment, String externalId) {
    HttpResponse<String> answer =
        reads.get(
            merchantId,
            environment,
            Owner.PAYMENTS,
            "/internal/customers",
            Map.of("external_id", externalId, "limit", "2"));
    if (answer.getStatus().getCode() != 200) {
      throw unavailable();
    }
    JsonNode found = Json.tree(answer.body()).path("data");
    if (found.size() == 0) {
      return notFound();
    }
    if (found.size() > 1) {
      return new Resolution.Refused(
          ErrorCode.CONFLICT,
          "More than one customer has this metadata.external_id; scope the token by customer_id.");
    }
    return new Resolution.Found(found.get(0).get("id").asText());
  }

  private static Resolution notFound() {
    return new Resolution.Refused(
        ErrorCode.CUSTOMER_NOT_FOUND,
        "No customer of this merchant in this environment matches scope_field and scope_value.");
  }

  private static ApiException unavailable() {
    return ApiException.unavailable(
        "The customer directory cannot be read right now. Please retry.", Duration.ofSeconds(1));
  }
}
