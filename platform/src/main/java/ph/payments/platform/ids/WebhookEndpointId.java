package ph.payments.platform.ids;

/** A webhook endpoint. Construction rejects anything but a well-formed id. */
public record WebhookEndpointId(String value) implements TypedId {

  public WebhookEndpointId {
    IdType.WEBHOOK_ENDPOINT.parse(value);
  }

  public static WebhookEndpointId generate() {
    return new WebhookEndpointId(IdType.WEBHOOK_ENDPOINT.generate());
  }

  @Override
  public String toString() {
    return value;
  }
}
