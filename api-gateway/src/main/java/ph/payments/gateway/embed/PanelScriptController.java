package ph.payments.gateway.embed;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Header;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import ph.payments.gateway.edge.ClientAddressLimited;
import ph.payments.gateway.edge.ClientAddressLimits;

/**
 * {@code GET /embed/v1/panel.js}: the embeddable merchant panel, {@code <payments-panel>}
 * (resources {@code embed/panel.js}; docs/embedding.md). Public, without a token: a merchant's page
 * loads it with a plain script tag from our origin, and the panel then reads {@code /embed/v1/**}
 * with the token it is given.
 *
 * <p>Headers: a short public cache (it changes only with a release) with a strong {@code ETag};
 * {@code nosniff}, so it runs only as the script it is served as; {@code
 * Access-Control-Allow-Origin: *} and {@code Cross-Origin-Resource-Policy: cross-origin}, so a host
 * page may load it in CORS mode or under {@code Cross-Origin-Embedder-Policy}; and {@code
 * Content-Security-Policy: default-src 'none'}, which governs the file only when it is opened as a
 * document (it cannot restrict the page that runs it: that page's own CSP does). {@code
 * EmbedCorsFilter} sets the same {@code Access-Control-Allow-Origin} again (set, not added: one
 * header), and {@code EmbedAuthentication} lets exactly this path through without a token. Limited
 * per client address together with the embed API.
 */
@Controller("/embed/v1")
public class PanelScriptController {

  static final String RESOURCE = "embed/panel.js";
  static final MediaType JAVASCRIPT = MediaType.of("application/javascript; charset=utf-8");
  static final String CACHE_CONTROL = "public, max-age=300";
  static final String CSP = "default-src 'none'";

  private final byte[] script;
  private final String etag;

  public PanelScriptController() {
    this.script = read(RESOURCE);
    this.etag = "\"" + sha256(script) + "\"";
  }

  @ClientAddressLimited(ClientAddressLimits.Kind.EMBED)
  @Get(uri = "/panel.js", produces = "application/javascript; charset=utf-8")
  public MutableHttpResponse<byte[]> panel(
      @Nullable @Header(HttpHeaders.IF_NONE_MATCH) String ifNoneMatch) {
    MutableHttpResponse<byte[]> response =
        matches(ifNoneMatch)
            ? HttpResponse.status(HttpStatus.NOT_MODIFIED)
            : HttpResponse.ok(script).contentType(JAVASCRIPT);
    return response
        .header(HttpHeaders.ETAG, etag)
        .header(HttpHeaders.CACHE_CONTROL, CACHE_CONTROL)
        .header("X-Content-Type-Options", "nosniff")
        .header(HttpHeaders.ACCESS_CONTROL_ALLOW_ORIGIN, "*")
        .header("Cross-Origin-Resource-Policy", "cross-origin")
        .header("Content-Security-Policy", CSP);
  }

  /** {@code If-None-Match} names our version (it may list several, or be {@code *}). */
  private boolean matches(@Nullable String ifNoneMatch) {
    return ifNoneMatch != null && (ifNoneMatch.strip().equals("*") || ifNoneMatch.contains(etag));
  }

  private static byte[] read(String resource) {
    try (InputStream in =
        PanelScriptController.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource + " is missing from the gateway's classpath");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String sha256(byte[] bytes) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(bytes);
      return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
