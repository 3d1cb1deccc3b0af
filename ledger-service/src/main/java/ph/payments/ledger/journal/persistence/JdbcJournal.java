package ph.payments.ledger.journal.persistence;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Singleton;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import ph.payments.ledger.journal.domain.AccountCode;
import ph.payments.ledger.journal.domain.AccountKey;
import ph.payments.ledger.journal.domain.EntryKind;
import ph.payments.ledger.journal.domain.JournalEntry;
import ph.payments.ledger.journal.domain.PostResult;
import ph.payments.ledger.journal.domain.Posting;
import ph.payments.platform.tx.Transactions;

/**
 * The journal in PostgreSQL, over the caller's transaction.
 *
 * <p><b>Locking.</b> Every writer first locks all accounts of each (merchant, environment,
 * currency) it touches, in account id order ({@link #lock}), and only then reads or writes anything
 * else. One order for everyone means two transactions can never wait for each other in a circle,
 * and the balance a writer read under the lock is the balance its postings start from.
 *
 * <p><b>Balances.</b> The database trigger on {@code postings} moves the account's balance and
 * stamps the posting's {@code balance_after} in the same statement; this class never writes a
 * balance itself.
 */
@Singleton
public class JdbcJournal {

  private static final String[] CODES =
      java.util.Arrays.stream(AccountCode.values()).map(AccountCode::wire).toArray(String[]::new);

  /**
   * A transaction and its postings in one statement: the postings are inserted only when the
   * transaction is (none when one of its kind and reference exists), in account id order, and the
   * trigger stamps each with its account's balance after it. The trigger's query sees the
   * transaction the statement's first part inserted, as it sees the statement's earlier postings.
   */
  private static final String POST =
      "WITH t AS (INSERT INTO journal_transactions (kind, reference, event_id, environment,"
          + " currency, effective_at, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
          + " ON CONFLICT (kind, reference) DO NOTHING RETURNING id)"
          + " INSERT INTO postings (transaction_id, account_id, amount, recorded_at)"
          + " SELECT t.id, p.account_id, p.amount, ?::timestamptz FROM t,"
          + " unnest(?::bigint[], ?::numeric[]) WITH ORDINALITY AS p (account_id, amount, position)"
          + " ORDER BY p.position"
          + " RETURNING transaction_id, account_id, balance_after";

  private final Clock clock;
  private final MeterRegistry metrics;

  public JdbcJournal(Clock clock, MeterRegistry metrics) {
    this.clock = clock;
    this.metrics = metrics;
  }

  /** An account as locked: its id and balance. */
  public record LockedAccount(long id, BigDecimal balance) {}

  /**
   * Creates the merchant's accounts in this environment and currency if they do not exist yet, and
   * locks all of them in id order until the end of the transaction.
   *
   * @return every account of the set, by code
   */
  public Map<AccountCode, LockedAccount> lock(
      Connection connection, String merchantId, String environment, String currency)
      throws SQLException {
    Map<AccountCode, LockedAccount> accounts =
        lockExisting(connection, merchantId, environment, currency);
    if (accounts.size() < CODES.length) {
      create(connection, merchantId, environment, currency);
      accounts = lockExisting(connection, merchantId, environment, currency);
    }
    return accounts;
  }

  /**
   * Locks the merchant's accounts in this environment and currency in id order, without creating
   * any: empty when the merchant never had activity there.
   */
  public Map<AccountCode, LockedAccount> lockExisting(
      Connection connection, String merchantId, String environment, String currency)
      throws SQLException {
    Transactions.requireTransaction(connection);
    Map<AccountCode, LockedAccount> accounts = new EnumMap<>(AccountCode.class);
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT id, code, balance FROM accounts"
                + " WHERE merchant_id = ? AND environment = ? AND currency = ?"
                + " ORDER BY id FOR UPDATE")) {
      select.setString(1, merchantId);
      select.setString(2, environment);
      select.setString(3, currency);
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          accounts.put(
              AccountCode.fromWire(rs.getString(2)),
              new LockedAccount(rs.getLong(1), rs.getBigDecimal(3)));
        }
      }
    }
    return accounts;
  }

  private void create(Connection connection, String merchantId, String environment, String currency)
      throws SQLException {
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO accounts (code, merchant_id, environment, currency, created_at)"
                + " SELECT code, ?, ?, ?, ? FROM unnest(?::text[]) AS code"
                + " ORDER BY code"
                + " ON CONFLICT (merchant_id, environment, currency, code) DO NOTHING")) {
      insert.setString(1, merchantId);
      insert.setString(2, environment);
      insert.setString(3, currency);
      insert.setTimestamp(4, Timestamp.from(clock.instant()));
      insert.setArray(5, connection.createArrayOf("text", CODES));
      insert.executeUpdate();
    }
  }

  /**
   * The account sets one transaction has locked, for its later postings: the rows stay locked until
   * the transaction ends, so a posting that reads no balance (no overdraft guard) needs only their
   * ids. Use one per transaction, never after it ended.
   */
  public static final class Locks {
    private record AccountSet(String merchantId, String environment, String currency) {}

    private final Map<AccountSet, Map<AccountCode, LockedAccount>> held = new HashMap<>();
  }

  /**
   * Posts {@code entry} unless a transaction of its kind and reference exists, or its guarded
   * account would go below zero. Locks the accounts it touches first (see the class comment), so a
   * caller that already holds them keeps its view of their balances.
   */
  public PostResult post(Connection connection, JournalEntry entry) throws SQLException {
    return post(connection, entry, new Locks());
  }

  /**
   * As {@link #post(Connection, JournalEntry)}, within a transaction that may have locked the
   * entry's accounts already ({@code locks}): an entry without an overdraft guard then posts in one
   * statement; a guarded one locks (reads) its accounts again for their current balances.
   */
  public PostResult post(Connection connection, JournalEntry entry, Locks locks)
      throws SQLException {
    PostResult result = write(connection, entry, locks);
    // Counted when written, before the caller's commit: a transaction that rolls back afterwards
    // and is retried counts twice. Good enough for a rate; the journal itself is the exact count.
    Counter.builder("ledger.postings")
        .description("Journal transactions the ledger was asked to post, by kind and result")
        .tag("kind", entry.kind().wire())
        .tag(
            "result",
            result instanceof PostResult.Posted
                ? "posted"
                : result instanceof PostResult.AlreadyPosted ? "already_posted" : "overdraft")
        .register(metrics)
        .increment();
    return result;
  }

  private PostResult write(Connection connection, JournalEntry entry, Locks locks)
      throws SQLException {
    Transactions.requireTransaction(connection);
    Map<AccountKey, LockedAccount> locked = new HashMap<>();
    for (String merchantId : new TreeSet<>(entry.merchants())) {
      Locks.AccountSet set =
          new Locks.AccountSet(merchantId, entry.environment(), entry.currency());
      Map<AccountCode, LockedAccount> accounts = locks.held.get(set);
      if (accounts == null || entry.mustNotOverdraw() != null) {
        accounts = lock(connection, merchantId, entry.environment(), entry.currency());
        locks.held.put(set, accounts);
      }
      accounts.forEach(
          (code, account) ->
              locked.put(
                  AccountKey.of(code, merchantId, entry.environment(), entry.currency()), account));
    }
    if (entry.mustNotOverdraw() != null) {
      BigDecimal balance = locked.get(entry.mustNotOverdraw()).balance();
      BigDecimal after = balance.add(entry.amountOn(entry.mustNotOverdraw()).amount());
      if (after.signum() < 0) {
        return new PostResult.Overdraft(entry.mustNotOverdraw(), balance);
      }
    }

    List<Posting> ordered = new ArrayList<>(entry.postings());
    ordered.sort(Comparator.comparingLong(p -> locked.get(p.account()).id()));
    Long[] accountIds = new Long[ordered.size()];
    BigDecimal[] amounts = new BigDecimal[ordered.size()];
    for (int i = 0; i < ordered.size(); i++) {
      accountIds[i] = locked.get(ordered.get(i).account()).id();
      amounts[i] = ordered.get(i).amount().amount();
    }
    Timestamp now = Timestamp.from(clock.instant());
    Long transactionId = null;
    Map<Long, BigDecimal> afterById = new HashMap<>();
    try (PreparedStatement insert = connection.prepareStatement(POST)) {
      insert.setString(1, entry.kind().wire());
      insert.setString(2, entry.reference());
      insert.setString(3, entry.eventId());
      insert.setString(4, entry.environment());
      insert.setString(5, entry.currency());
      insert.setTimestamp(6, Timestamp.from(entry.effectiveAt()));
      insert.setTimestamp(7, now);
      insert.setTimestamp(8, now);
      insert.setArray(9, connection.createArrayOf("bigint", accountIds));
      insert.setArray(10, connection.createArrayOf("numeric", amounts));
      try (ResultSet rs = insert.executeQuery()) {
        while (rs.next()) {
          transactionId = rs.getLong(1);
          afterById.put(rs.getLong(2), rs.getBigDecimal(3));
        }
      }
    }
    if (transactionId == null) {
      return new PostResult.AlreadyPosted(entry.kind(), entry.reference());
    }
    Map<AccountKey, BigDecimal> balancesAfter = new HashMap<>();
    for (Posting posting : ordered) {
      balancesAfter.put(posting.account(), afterById.get(locked.get(posting.account()).id()));
    }
    return new PostResult.Posted(transactionId, balancesAfter);
  }

  /**
   * The currency of a transaction of this kind and reference, if the ledger has one: how a refund
   * that does not name its currency finds its payment's.
   */
  public Optional<String> currencyOf(Connection connection, EntryKind kind, String reference)
      throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT currency FROM journal_transactions WHERE kind = ? AND reference = ?")) {
      select.setString(1, kind.wire());
      select.setString(2, reference);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
      }
    }
  }
}
