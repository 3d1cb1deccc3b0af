package ph.payments.gateway.idempotency;

import java.time.Duration;

/** What claiming an idempotency key for a new request found. */
sealed interface Claim {

  /** The key was free (or its record had outlived the window): the new command is admitted. */
  record Admitted() implements Claim {}

  /** The key was used for another request (method, path or body): 409 {@code conflict}. */
  record Mismatch() implements Claim {}

  /**
   * The key's request was answered: replay exactly this ({@code commandId}: the command it
   * answered, which sealed fields of the body are bound to).
   */
  record Completed(String commandId, int status, String body) implements Claim {}

  /**
   * The key's request is still waiting for the reply to {@code commandId} somewhere (or was, until
   * its gateway died): this request waits for that reply too, up to {@code lockedFor}, and answers
   * it; 409 {@code conflict} when it does not come.
   */
  record Busy(String commandId, Duration lockedFor) implements Claim {}

  /**
   * The key's request gave up waiting (it answered 503) and its command has no reply yet: this
   * request took the lock over and waits for the reply to {@code commandId}.
   */
  record TakenOver(String commandId) implements Claim {}
}
