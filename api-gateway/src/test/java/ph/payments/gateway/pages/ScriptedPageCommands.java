package ph.payments.gateway.pages;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import ph.payments.gateway.idempotency.IdempotentCommands;

/**
 * The page command path of {@link InvoicePagesIT}: the real one, except that a test can script the
 * owner's next replies ({@link #answerNext}), as payments-service would answer them, to see how the
 * page shows each; a scripted command is recorded instead of being sent. Gated by {@code
 * spec.name}, so no other test class sees it.
 */
@Singleton
@Replaces(PageCommands.class)
@Requires(property = "spec.name", value = "InvoicePagesIT")
public class ScriptedPageCommands extends PageCommands {

  /** A command a scripted reply answered. */
  public record Sent(String merchantId, String environment, String type, JsonNode body) {}

  private final Queue<Reply> next = new ConcurrentLinkedQueue<>();
  private final List<Sent> sent = new CopyOnWriteArrayList<>();

  public ScriptedPageCommands(IdempotentCommands idempotent) {
    super(idempotent);
  }

  /** The next command gets {@code reply} (without being sent). */
  public void answerNext(int status, JsonNode body) {
    next.add(new Reply(status, body));
  }

  /** The commands scripted replies answered, oldest first. */
  public List<Sent> sent() {
    return sent;
  }

  /** The next scripted reply not used yet, or null. */
  public Reply answerless() {
    return next.peek();
  }

  @Override
  public Reply send(
      String merchantId,
      String environment,
      String type,
      String resourceId,
      JsonNode body,
      String formToken,
      String route) {
    Reply scripted = next.poll();
    if (scripted == null) {
      return super.send(merchantId, environment, type, resourceId, body, formToken, route);
    }
    sent.add(new Sent(merchantId, environment, type, body));
    return scripted;
  }
}
