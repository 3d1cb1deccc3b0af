package ph.payments.gateway.merchants;

import java.util.Collection;
import java.util.Set;

/**
 * API key scopes (ARCHITECTURE "Scopes"). {@code *} grants everything; otherwise a key needs the
 * exact scope an operation names. Catalog scopes ({@code <resource>:read|write}) join as their
 * resources do.
 */
public final class Scopes {

  public static final String ALL = "*";

  public static final Set<String> KNOWN =
      Set.of(
          ALL,
          "payments:read",
          "payments:write",
          "refunds:read",
          "refunds:write",
          "payouts:read",
          "payouts:write",
          "balance:read",
          "events:read",
          "webhooks:read",
          "webhooks:write",
          "customers:read",
          "customers:write",
          "products:read",
          "products:write",
          "invoices:read",
          "invoices:write",
          "payment_links:read",
          "payment_links:write",
          "static_qrs:read",
          "static_qrs:write",
          "embed_tokens:write",
          // Issue 18's name for the same permission; either lets a key make embed tokens.
          "embed:write");

  public static boolean grants(Collection<String> held, String required) {
    return held.contains(ALL) || held.contains(required);
  }

  private Scopes() {}
}
