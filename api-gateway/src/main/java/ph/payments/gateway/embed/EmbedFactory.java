package ph.payments.gateway.embed;

import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.time.Clock;
import ph.payments.gateway.embed.keys.SigningKeys;
import ph.payments.gateway.embed.tokens.EmbedTokenSigner;
import ph.payments.gateway.embed.tokens.EmbedTokenVerifier;
import ph.payments.gateway.merchants.MerchantRepository;

/**
 * Wires the plain-Java token signer and verifier: {@code iss} is the gateway's public base URL
 * ({@code PUBLIC_BASE_URL}), keys come from {@link SigningKeys}, merchants' standing from the
 * gateway's own merchants table (as API-key authentication reads it), time from the injected {@link
 * Clock}.
 */
@Factory
class EmbedFactory {

  @Singleton
  EmbedTokenSigner signer(@Value("${gateway.public-base-url}") String publicBaseUrl) {
    return new EmbedTokenSigner(issuer(publicBaseUrl));
  }

  @Singleton
  EmbedTokenVerifier verifier(
      SigningKeys keys,
      MerchantRepository merchants,
      Clock clock,
      @Value("${gateway.public-base-url}") String publicBaseUrl) {
    return new EmbedTokenVerifier(
        keys,
        id ->
            merchants
                .findById(id)
                .map(m -> new EmbedTokenVerifier.Standing(m.name(), m.isActive(), m.live())),
        issuer(publicBaseUrl),
        clock);
  }

  /** The base URL without a trailing slash, so both spellings of the setting give one issuer. */
  static String issuer(String publicBaseUrl) {
    return publicBaseUrl.endsWith("/")
        ? publicBaseUrl.substring(0, publicBaseUrl.length() - 1)
        : publicBaseUrl;
  }
}
