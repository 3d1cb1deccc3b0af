package ph.payments.payments.providers.sandbox;

import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.payments.providers.QrPayloads;

/**
 * One sandbox provider per {@link SandboxProvider.Kind} and one sandbox payout rail per {@link
 * SandboxPayoutRail.Kind}, all signing with one callback secret.
 */
@Singleton
public class SandboxProviders {

  private static final Logger log = LoggerFactory.getLogger(SandboxProviders.class);

  private final List<SandboxProvider> providers;
  private final List<SandboxPayoutRail> payoutRails;

  public SandboxProviders(
      @Nullable @Value("${payments.sandbox.callback-secret:}") String configuredSecret,
      @Value("${payments.public-base-url}") String publicBaseUrl,
      QrPayloads qrPayloads,
      Clock clock) {
    byte[] secret = secret(configuredSecret);
    this.providers =
        Arrays.stream(SandboxProvider.Kind.values())
            .map(kind -> new SandboxProvider(kind, secret, publicBaseUrl, qrPayloads, clock))
            .toList();
    this.payoutRails =
        Arrays.stream(SandboxPayoutRail.Kind.values())
            .map(kind -> new SandboxPayoutRail(kind, secret, clock))
            .toList();
  }

  public List<SandboxPayoutRail> payoutRails() {
    return payoutRails;
  }

  public Optional<SandboxPayoutRail> payoutRail(String name) {
    return payoutRails.stream().filter(r -> r.name().equals(name)).findFirst();
  }

  public List<SandboxProvider> all() {
    return providers;
  }

  public Optional<SandboxProvider> byName(String name) {
    return providers.stream().filter(p -> p.name().equals(name)).findFirst();
  }

  private static byte[] secret(String configured) {
    if (configured == null || configured.isBlank()) {
      // The sandbox signs and this service verifies, so a random secret per start is enough;
      // SANDBOX_CALLBACK_SECRET keeps callbacks valid across restarts.
      log.info("SANDBOX_CALLBACK_SECRET is not set: using a random secret for this run");
      byte[] random = new byte[32];
      new SecureRandom().nextBytes(random);
      return random;
    }
    return configured.getBytes(StandardCharsets.UTF_8);
  }
}
