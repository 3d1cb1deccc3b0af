package ph.payments.gateway.edge;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.util.Map;
import org.junit.jupiter.api.Test;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Http;

/**
 * With no trusted proxy (the default), {@code X-Forwarded-For} is ignored: a client cannot escape
 * its bucket by naming a new address in every request.
 */
@MicronautTest
class UntrustedForwardingIT extends GatewayTest {

  @Override
  protected Map<String, String> extraProperties() {
    return Map.of("gateway.edge.checkout-per-minute", "2");
  }

  @Test
  void aForgedForwardedForDoesNotBuyANewBucket() {
    Http http = http();
    for (int i = 0; i < 2; i++) {
      assertEquals(
          404,
          http.send("GET", "/qr/x.png", null, null, "X-Forwarded-For", "203.0.113." + i).status());
    }
    Http.Response limited =
        http.send("GET", "/qr/x.png", null, null, "X-Forwarded-For", "203.0.113.200");
    assertEquals(429, limited.status(), limited.body());
  }
}
