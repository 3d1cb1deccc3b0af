package ph.payments.gateway.routing;

/** The services behind the gateway, each owning its resources and its internal HTTP API. */
public enum Owner {
  PAYMENTS("gateway.services.payments-url"),
  LEDGER("gateway.services.ledger-url"),
  WEBHOOKS("gateway.services.webhook-url");

  private final String urlProperty;

  Owner(String urlProperty) {
    this.urlProperty = urlProperty;
  }

  /** The configuration property holding the owner's base URL. */
  public String urlProperty() {
    return urlProperty;
  }
}
