package ph.payments.gateway.idempotency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.http.HttpRequest;
import org.junit.jupiter.api.Test;
import ph.payments.platform.errors.ApiException;

class IdempotencyKeyTest {

  @Test
  void printableAsciiUpTo255CharactersIsAKey() {
    assertNull(IdempotencyKey.problem("a"));
    assertNull(IdempotencyKey.problem("x".repeat(255)));
    assertNull(IdempotencyKey.problem("order 42/retry#1 ~{}"));
    assertNull(IdempotencyKey.problem("550e8400-e29b-41d4-a716-446655440000"));
  }

  @Test
  void anythingElseIsNot() {
    assertNotNull(IdempotencyKey.problem(""));
    assertNotNull(IdempotencyKey.problem("x".repeat(256)));
    assertNotNull(IdempotencyKey.problem("tab\there"));
    assertNotNull(IdempotencyKey.problem("caf\u00e9"));
    assertNotNull(IdempotencyKey.problem("del\u007f"));
    assertThrows(IllegalArgumentException.class, () -> new IdempotencyKey("x".repeat(256)));
  }

  @Test
  void theHeaderIsOptionalAndABadOneIsAnInvalidRequest() {
    assertTrue(IdempotencyKey.from(HttpRequest.POST("/v1/x", "{}")).isEmpty());
    assertEquals(
        "k-1",
        IdempotencyKey.from(HttpRequest.POST("/v1/x", "{}").header("Idempotency-Key", "k-1"))
            .orElseThrow()
            .value());
    ApiException tooLong =
        assertThrows(
            ApiException.class,
            () ->
                IdempotencyKey.from(
                    HttpRequest.POST("/v1/x", "{}").header("Idempotency-Key", "k".repeat(256))));
    assertEquals("invalid_request", tooLong.code().code());
    assertTrue(tooLong.issues().containsKey("Idempotency-Key"));
    ApiException twice =
        assertThrows(
            ApiException.class,
            () ->
                IdempotencyKey.from(
                    HttpRequest.POST("/v1/x", "{}")
                        .header("Idempotency-Key", "a")
                        .header("Idempotency-Key", "b")));
    assertTrue(twice.issues().containsKey("Idempotency-Key"));
  }
}
