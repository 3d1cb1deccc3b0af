package ph.payments.platform.errors;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import ph.payments.platform.json.Json;

class ErrorCodeTest {

  @Test
  void statusesStatedBySpecPartSeven() {
    Map<String, Integer> stated =
        Map.of(
            "invalid_request", 400,
            "invalid_state", 400,
            "insufficient_balance", 400,
            "no_route", 400,
            "unauthenticated", 401,
            "insufficient_scope", 403,
            "not_found", 404,
            "rate_limited", 429);
    stated.forEach(
        (code, status) ->
            assertEquals(status, ErrorCode.fromCode(code).orElseThrow().httpStatus(), code));
  }

  @Test
  void linkErrorsHaveTheStatusesDecidedInIssueSixteen() {
    assertEquals(409, ErrorCode.LINK_INACTIVE.httpStatus());
    assertEquals(410, ErrorCode.LINK_EXPIRED.httpStatus());
    assertEquals(400, ErrorCode.AMOUNT_REQUIRED.httpStatus());
    assertEquals(400, ErrorCode.METHOD_REQUIRED.httpStatus());
  }

  @Test
  void invoiceErrorsHaveTheStatusesDecidedInIssueSeventeen() {
    assertEquals(409, ErrorCode.INVOICE_PAID.httpStatus());
    assertEquals(409, ErrorCode.INVOICE_VOID.httpStatus());
    assertEquals(409, ErrorCode.INVOICE_NOT_SENT.httpStatus());
    assertEquals(400, ErrorCode.PARTIAL_NOT_ALLOWED.httpStatus());
  }

  @Test
  void everyCodeOfTheEnumerationExists() {
    Set<String> spec =
        Set.of(
            "invalid_request",
            "invalid_state",
            "insufficient_balance",
            "no_route",
            "unauthenticated",
            "insufficient_scope",
            "not_found",
            "rate_limited",
            "provider_error",
            "internal_error",
            "email_taken",
            "invalid_token",
            "already_used",
            "conflict",
            "customer_not_found",
            "duplicate_sku",
            "merchant_inactive",
            "merchant_not_live",
            "ip_not_allowed",
            "link_inactive",
            "link_expired",
            "amount_required",
            "method_required",
            "shipment_not_found",
            "shipment_closed",
            "invoice_paid",
            "invoice_void",
            "invoice_not_sent",
            "partial_not_allowed");
    Set<String> ours =
        Arrays.stream(ErrorCode.values()).map(ErrorCode::code).collect(Collectors.toSet());
    assertEquals(spec, ours);
  }

  @Test
  void envelopeHasIssuesOnlyWhenThereAreSome() {
    assertEquals(
        "{\"error\":{\"code\":\"not_found\",\"message\":\"No such payment.\"}}",
        Json.toText(ApiException.notFound("payment").envelope()));
    assertEquals(
        "{\"error\":{\"code\":\"invalid_request\",\"message\":\"The request has invalid fields.\","
            + "\"issues\":{\"amount\":\"must be at least 0.01\"}}}",
        Json.toText(ApiException.invalid(Map.of("amount", "must be at least 0.01")).envelope()));
  }

  @Test
  void frameworkStatusesMapToCodes() {
    assertEquals(ErrorCode.NOT_FOUND, ErrorCode.forStatus(404));
    assertEquals(ErrorCode.INVALID_REQUEST, ErrorCode.forStatus(413));
    assertEquals(ErrorCode.INVALID_REQUEST, ErrorCode.forStatus(405));
    assertEquals(ErrorCode.INTERNAL_ERROR, ErrorCode.forStatus(503));
  }
}
