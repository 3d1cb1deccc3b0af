package ph.payments.gateway.commands;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.tx.Transactions;

/**
 * Recording a command's reply changes no indexed column of the command log, so PostgreSQL writes it
 * as a heap-only update: the new row version in the old one's page and no index entry (migration
 * V12). An index or index predicate on a reply's column would make every reply a new version in
 * each of the table's indexes, which the creation path pays once per request; this test fails then.
 * The counts are this connection's own ({@code pg_stat_xact_user_tables}), taken around the
 * statement, so other tests' writes do not enter them.
 */
@MicronautTest(transactional = false)
class ReplyInPlaceIT extends GatewayTest {

  /** About a payment creation's request and reply. */
  private static final String REQUEST = "{\"description\":\"" + "r".repeat(400) + "\"}";

  private static final String REPLY = "{\"checkout_url\":\"" + "u".repeat(700) + "\"}";

  @Inject Transactions transactions;
  @Inject Clock clock;

  @Test
  void aReplyIsRecordedInPlace() {
    String commandId = command();

    long[] updates =
        transactions.inTransaction(
            c -> {
              long[] before = updates(c);
              CommandLog.recordReply(c, commandId, 201, REPLY, clock.instant());
              return since(before, updates(c));
            });

    assertEquals(1, updates[0], "the reply updated the command's row");
    assertEquals(1, updates[1], "and in place (heap-only)");
  }

  @Test
  void aPollsRepliesAreRecordedInPlace() {
    List<String> commandIds = List.of(command(), command(), command());

    long[] updates =
        transactions.inTransaction(
            c -> {
              long[] before = updates(c);
              CommandLog.recordReplies(
                  c,
                  CommandLog.replyRecording(List.of()),
                  commandIds.stream().map(id -> new ReplyHook.Reply(id, 201, REPLY)).toList(),
                  clock.instant());
              return since(before, updates(c));
            });

    assertEquals(3, updates[0], "the replies updated the commands' rows");
    assertEquals(3, updates[1], "and in place (heap-only)");
  }

  private static long[] since(long[] before, long[] after) {
    return new long[] {after[0] - before[0], after[1] - before[1]};
  }

  /**
   * The command log's updates this backend has counted and not yet reported: all of them, and the
   * heap-only ones (PostgreSQL 15 keeps earlier transactions' counts there until it reports them,
   * so the test takes the difference across its own statement).
   */
  private static long[] updates(Connection connection) throws SQLException {
    try (PreparedStatement select =
            connection.prepareStatement(
                "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables"
                    + " WHERE relname = 'commands'");
        ResultSet rs = select.executeQuery()) {
      rs.next();
      return new long[] {rs.getLong(1), rs.getLong(2)};
    }
  }

  private String command() {
    return CommandRows.insert(
        transactions, "test.in_place", REQUEST, IdType.PAYMENT.generate(), clock.instant(), null);
  }
}
