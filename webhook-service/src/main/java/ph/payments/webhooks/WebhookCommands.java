package ph.payments.webhooks;

/**
 * Command types webhook-service answers on {@code webhooks.commands}; the gateway sends them with
 * the merchant and environment of the API key. A replay may also come from the operator API, with
 * neither.
 */
public final class WebhookCommands {

  /** Body {@code {url, events, description}}; resource id: the {@code whe_} id to create. */
  public static final String ENDPOINT_CREATE = "webhooks.endpoints.create";

  /** Body: any of {@code url, events, description, enabled}; resource id: the endpoint. */
  public static final String ENDPOINT_UPDATE = "webhooks.endpoints.update";

  /** Resource id: the endpoint. Its pending deliveries end as failed. */
  public static final String ENDPOINT_DELETE = "webhooks.endpoints.delete";

  /** Resource id: the endpoint. The old secret keeps signing for 24 hours. */
  public static final String ENDPOINT_ROTATE_SECRET = "webhooks.endpoints.rotate_secret";

  /** Resource id: the delivery number. Only a failed delivery can be replayed. */
  public static final String DELIVERY_REPLAY = "webhooks.deliveries.replay";

  private WebhookCommands() {}
}
