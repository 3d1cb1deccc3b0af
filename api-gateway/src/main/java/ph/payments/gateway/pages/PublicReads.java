package ph.payments.gateway.pages;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.http.HttpResponse;
import jakarta.inject.Singleton;
import java.util.Optional;
import java.util.regex.Pattern;
import ph.payments.gateway.merchants.MerchantRepository;
import ph.payments.gateway.merchants.MerchantRow;
import ph.payments.gateway.routing.Owner;
import ph.payments.gateway.routing.ReadRouter;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.json.Json;

/**
 * What the hosted pages read from payments-service's public views (no merchant scope; found by an
 * unguessable token or slug only), and the merchant's display name from the gateway's own table. A
 * token or slug of the wrong shape is not found without asking the owner.
 */
@Singleton
public class PublicReads {

  /** A checkout token (payments-service {@code CheckoutTokens}); receipts use the same token. */
  public static final Pattern CHECKOUT_TOKEN = Pattern.compile("ct_[A-Za-z0-9_-]{32}");

  /** A receipt-history token (payments-service {@code ReceiptsTokens}). */
  public static final Pattern HISTORY_TOKEN = Pattern.compile("rh_[A-Za-z0-9_-]{32}");

  /** An invoice's token (payments-service, docs/invoices.md): {@code it_} + 192 random bits. */
  public static final Pattern INVOICE_TOKEN = Pattern.compile("it_[A-Za-z0-9_-]{32}");

  /** A payment link's slug (docs/hosted-pages.md): 16 letters and digits. */
  public static final Pattern SLUG = Pattern.compile("[A-Za-z0-9]{16}");

  private final ReadRouter router;
  private final MerchantRepository merchants;

  public PublicReads(ReadRouter router, MerchantRepository merchants) {
    this.router = router;
    this.merchants = merchants;
  }

  /** The payment behind a checkout token (also its receipt's), or empty. */
  public Optional<JsonNode> checkout(String token) {
    return read(CHECKOUT_TOKEN, token, "/internal/public/checkouts/");
  }

  /** A customer's receipt history, or empty. */
  public Optional<JsonNode> receiptHistory(String token) {
    return read(HISTORY_TOKEN, token, "/internal/public/receipts/");
  }

  /** A payment link by its slug, or empty. */
  public Optional<JsonNode> link(String slug) {
    return read(SLUG, slug, "/internal/public/links/");
  }

  /** An invoice that was sent (a draft is not found), or empty. */
  public Optional<JsonNode> invoice(String token) {
    return read(INVOICE_TOKEN, token, "/internal/public/invoices/");
  }

  /** The merchant's display name: what a customer knows the shop by. */
  public String merchantName(String merchantId) {
    return merchantId == null
        ? ""
        : merchants.findById(merchantId).map(MerchantRow::name).orElse("");
  }

  private Optional<JsonNode> read(Pattern shape, String key, String path) {
    if (key == null || !shape.matcher(key).matches()) {
      return Optional.empty();
    }
    HttpResponse<String> answer = router.getPublic(Owner.PAYMENTS, path + key);
    int status = answer.getStatus().getCode();
    if (status == 404) {
      return Optional.empty();
    }
    if (status != 200) {
      throw ApiException.unavailable(
          "The page cannot be shown right now. Please retry.", java.time.Duration.ofSeconds(1));
    }
    return Optional.of(Json.tree(answer.body()));
  }
}
