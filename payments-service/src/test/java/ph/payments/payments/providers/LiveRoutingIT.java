package ph.payments.payments.providers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.payments.providers.sandbox.SandboxProviders;
import ph.payments.payments.support.ServiceClient;
import ph.payments.platform.commands.CommandDispatcher;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.tx.Transactions;
import ph.payments.testkit.FreshDatabase;
import ph.payments.testkit.TestDatabase;
import ph.payments.testkit.TestKafka;

/**
 * Issue 14, item 7: live mode reaches only the connectors {@code LIVE_CONNECTORS} names. With none
 * named (the default) a live payment, a live payout and a live refund answer {@code no_route} and
 * nothing is created; test mode keeps its sandbox. (With {@code simulated} named, the flow ITs take
 * live payments, refunds and payouts through the sandbox.)
 */
@MicronautTest(transactional = false)
@ExtendWith(FreshDatabase.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LiveRoutingIT implements TestPropertyProvider {

  private static final String TOKEN = "internal-token-for-live-routing-it";
  private static final String MERCHANT = "mer_" + "0".repeat(25) + "9";

  @Inject CommandDispatcher dispatcher;
  @Inject Transactions transactions;
  @Inject EmbeddedServer server;
  @Inject SandboxProviders sandbox;

  @Override
  public Map<String, String> getProperties() {
    TestDatabase database = TestDatabase.forClass(getClass());
    Map<String, String> properties = new HashMap<>();
    properties.put("spec.name", "LiveRoutingIT");
    // payments.live-connectors is left unset: the default a deployment gets.
    properties.put("datasources.default.url", database.jdbcUrl());
    properties.put("datasources.default.username", database.user());
    properties.put("kafka.bootstrap.servers", TestKafka.bootstrapServers());
    properties.put("micronaut.server.port", "-1");
    properties.put("internal.token", TOKEN);
    properties.put("payments.sandbox.callback-secret", "sandbox-secret-for-live-routing-it");
    properties.put("payments.expiry-sweep", "1h");
    properties.put("payments.sandbox.batch-sweep", "1h");
    return properties;
  }

  private ServiceClient service() {
    return new ServiceClient(dispatcher, transactions, server.getURL().toString(), TOKEN);
  }

  @Test
  void aLivePaymentWithNoConnectorIsNoRouteAndATestPaymentIsUnaffected() {
    for (String method : List.of("card", "ewallet1", "rail1_qr", "bank_transfer")) {
      CommandReply live = create("live", "{\"amount\":100,\"method\":\"" + method + "\"}");
      assertEquals(400, live.status(), live.body().toString());
      assertEquals("no_route", live.body().at("/error/code").asText());
      CommandReply test = create("test", "{\"amount\":100,\"method\":\"" + method + "\"}");
      assertEquals(201, test.status(), test.body().toString());
      assertTrue(test.body().get("provider").asText().startsWith("sandbox_"));
    }
    assertEquals(
        4, service().json("/internal/payments", MERCHANT, "test").get("data").size(), "test");
    assertEquals(
        0, service().json("/internal/payments", MERCHANT, "live").get("data").size(), "none live");
  }

  @Test
  void aLivePayoutWithNoConnectorIsNoRouteBeforeAnyHoldIsAsked() {
    // The ledger of this context is unreachable (nothing listens at the default ledger URL):
    // no_route must come before the hold is asked, or the command would fail instead.
    CommandReply live =
        service()
            .dispatch(
                ServiceClient.command(
                    "payouts.create",
                    MERCHANT,
                    "live",
                    IdType.PAYOUT.generate(),
                    "{\"amount\":100,\"method\":\"ewallet1\","
                        + "\"destination\":{\"account_no\":\"09171234567\"}}"));
    assertEquals(400, live.status(), live.body().toString());
    assertEquals("no_route", live.body().at("/error/code").asText());
  }

  @Test
  void aLiveRefundGoesOnlyThroughAProviderLiveModeStillUses() {
    LiveConnectors none = new LiveConnectors("", List.of(), List.of());
    LiveConnectors simulated = new LiveConnectors("simulated", List.of(), List.of());
    ProviderRouter off = new ProviderRouter(List.of(), sandbox, none);
    ProviderRouter on = new ProviderRouter(List.of(), sandbox, simulated);
    assertTrue(off.byName("live", "sandbox_card").isEmpty(), "a live refund's provider: none");
    assertTrue(off.byName("test", "sandbox_card").isPresent(), "test mode keeps the sandbox");
    assertTrue(on.byName("live", "sandbox_card").isPresent());
    assertTrue(off.byName("sandbox_card").isPresent(), "callbacks still find their adapter");
    PayoutRouter payoutsOff = new PayoutRouter(List.of(), sandbox, none);
    assertTrue(payoutsOff.route("live", "ewallet1", "PHP").isEmpty());
    assertTrue(payoutsOff.route("test", "ewallet1", "PHP").isPresent());
    assertTrue(
        new PayoutRouter(List.of(), sandbox, simulated)
            .route("live", "ewallet1", "PHP")
            .isPresent());
  }

  @Test
  void anUnknownConnectorNameRefusesStartUp() {
    IllegalStateException refused =
        assertThrows(
            IllegalStateException.class,
            () -> new LiveConnectors("simulated, paymongo", List.of(), List.of()));
    assertTrue(refused.getMessage().contains("paymongo"), refused.getMessage());
  }

  private CommandReply create(String environment, String body) {
    return service()
        .dispatch(
            ServiceClient.command(
                "payments.create", MERCHANT, environment, IdType.PAYMENT.generate(), body));
  }
}
