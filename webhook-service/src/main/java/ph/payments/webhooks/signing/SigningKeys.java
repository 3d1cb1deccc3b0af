package ph.payments.webhooks.signing;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The secrets that sign a target's deliveries: the current one, and during a rotation the previous
 * one until it expires. Never logged; {@link #toString()} hides them.
 *
 * @param current the secret handed out last
 * @param previous the secret it replaced, or null
 * @param previousExpiresAt when {@code previous} stops signing, or null
 */
public record SigningKeys(String current, String previous, Instant previousExpiresAt) {

  public SigningKeys {
    Objects.requireNonNull(current, "current");
  }

  /** The secrets that sign at {@code now}: the current one first. */
  public List<String> active(Instant now) {
    List<String> active = new ArrayList<>(2);
    active.add(current);
    if (previous != null && previousExpiresAt != null && now.isBefore(previousExpiresAt)) {
      active.add(previous);
    }
    return active;
  }

  @Override
  public String toString() {
    return "SigningKeys[…]";
  }
}
