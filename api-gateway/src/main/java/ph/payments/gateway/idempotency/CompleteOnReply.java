package ph.payments.gateway.idempotency;

import jakarta.inject.Singleton;
import ph.payments.gateway.commands.ReplyHook;

/**
 * Completes the idempotency records of commands in the statement that records their replies, so an
 * outcome is kept even when no request waits for it any more (the request timed out, or its gateway
 * instance died): a retry with the same key then gets the result.
 */
@Singleton
class CompleteOnReply implements ReplyHook {

  @Override
  public String statement() {
    return IdempotencyRecords.COMPLETE_ON_REPLY;
  }
}
