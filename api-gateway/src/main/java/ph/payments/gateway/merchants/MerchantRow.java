package ph.payments.gateway.merchants;

import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;

/** A row of {@code merchants}. */
@MappedEntity("merchants")
public record MerchantRow(
    @Id String id,
    String name,
    String email,
    String status,
    boolean live,
    Instant createdAt,
    Instant updatedAt) {

  public static final String ACTIVE = "active";
  public static final String INACTIVE = "inactive";

  public boolean isActive() {
    return ACTIVE.equals(status);
  }

  MerchantRow withStatus(String newStatus, Instant now) {
    return new MerchantRow(id, name, email, newStatus, live, createdAt, now);
  }

  MerchantRow goneLive(Instant now) {
    return new MerchantRow(id, name, email, status, true, createdAt, now);
  }
}
