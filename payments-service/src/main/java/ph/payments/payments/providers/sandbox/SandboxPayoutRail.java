package ph.payments.payments.providers.sandbox;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import ph.payments.payments.payments.domain.Failure;
import ph.payments.payments.providers.CallbackSignatures;
import ph.payments.payments.providers.PayoutAdapter;
import ph.payments.payments.providers.ProviderCallback;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;

/**
 * A complete sandbox payout rail with its own books ({@code sandbox_payouts}). The instant rails
 * ({@code ewallet1}, {@code bank_transfer}) answer at once: paid, failed for the {@link
 * MagicAccounts} that fail, or sent without confirmation for those that stall. The batch rail
 * ({@code bank_transfer_nrt}) queues every payout for its next cut-off ({@link BatchSchedule});
 * {@link SandboxPayoutBatches} sends the batch then. Later outcomes are reported as signed
 * callbacks through {@link ph.payments.payments.providers.ProviderCallbacks}, like a real rail's.
 */
public final class SandboxPayoutRail implements PayoutAdapter {

  /** The rails we simulate, one per payout method. */
  public enum Kind {
    /** Transfers to ewallet1 wallets, addressed by the wallet's mobile number. */
    WALLET("sandbox_ewallet1_payouts", "ewallet1", null, false),
    /**
     * The instant interbank rail: real time, at most PHP 50,000.00 per transfer (the limit of the
     * Philippines' instant retail rail).
     */
    BANK_INSTANT("sandbox_bank_instant", "bank_transfer", new BigDecimal("50000.00"), false),
    /** The batch interbank rail: no per-transfer limit, settled at cut-offs. */
    BANK_BATCH("sandbox_bank_batch", "bank_transfer_nrt", null, true);

    final String providerName;
    final String method;
    final BigDecimal maxAmount;
    final boolean batch;

    Kind(String providerName, String method, BigDecimal maxAmount, boolean batch) {
      this.providerName = providerName;
      this.method = method;
      this.maxAmount = maxAmount;
      this.batch = batch;
    }
  }

  /** What a test helper tells the rail about a payout it has not finished. */
  public enum Action {
    SUCCEED,
    FAIL
  }

  private final Kind kind;
  private final byte[] callbackSecret;
  private final Clock clock;

  public SandboxPayoutRail(Kind kind, byte[] callbackSecret, Clock clock) {
    this.kind = kind;
    this.callbackSecret = callbackSecret.clone();
    this.clock = clock;
  }

  @Override
  public String name() {
    return kind.providerName;
  }

  @Override
  public Set<String> methods() {
    return Set.of(kind.method);
  }

  @Override
  public Set<String> currencies() {
    return Set.of("PHP");
  }

  @Override
  public BigDecimal maxAmount() {
    return kind.maxAmount;
  }

  @Override
  public boolean verify(byte[] body, String signature) {
    return CallbackSignatures.verify(callbackSecret, body, signature, clock.instant());
  }

  @Override
  public Sent send(Connection connection, PayoutOrder order) throws SQLException {
    String ref = "sbp_" + IdType.MESSAGE.generate().substring(4);
    Instant now = clock.instant();
    PayoutOutcome outcome;
    Failure failure = null;
    Instant batchAt = null;
    if (kind.batch) {
      outcome = PayoutOutcome.QUEUED;
      batchAt = BatchSchedule.nextBatch(now);
    } else {
      MagicAccounts.Behaviour behaviour = MagicAccounts.of(order.accountNo());
      if (behaviour instanceof MagicAccounts.Fails fails) {
        outcome = PayoutOutcome.FAILED;
        failure = fails.failure();
      } else if (behaviour instanceof MagicAccounts.Stalls) {
        outcome = PayoutOutcome.PROCESSING;
      } else {
        outcome = PayoutOutcome.PAID;
      }
    }
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO sandbox_payouts (provider_ref, provider, payout_id, amount, currency,"
                + " account_no, status, batch_at, created_at, updated_at)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      insert.setString(1, ref);
      insert.setString(2, name());
      insert.setString(3, order.payoutId());
      insert.setBigDecimal(4, order.amount().amount());
      insert.setString(5, order.amount().currency());
      insert.setString(6, order.accountNo());
      insert.setString(7, bookStatus(outcome));
      insert.setTimestamp(8, batchAt == null ? null : Timestamp.from(batchAt));
      insert.setTimestamp(9, Timestamp.from(now));
      insert.setTimestamp(10, Timestamp.from(now));
      insert.executeUpdate();
    }
    return new Sent(ref, outcome, failure);
  }

  /**
   * Sends a queued payout with its batch: the receiving institution credits it, refuses it ({@link
   * MagicAccounts}) or does not confirm yet.
   *
   * @return the callbacks the rail sends, empty when the payout is no longer queued
   */
  public List<SandboxProvider.SignedCallback> sendWithBatch(Connection connection, String ref)
      throws SQLException {
    Book book = lock(connection, ref);
    if (book == null || !book.status().equals("queued")) {
      return List.of();
    }
    MagicAccounts.Behaviour behaviour = MagicAccounts.of(book.accountNo());
    if (behaviour instanceof MagicAccounts.Fails fails) {
      move(connection, ref, "failed");
      return List.of(
          callback(
              ref,
              ProviderCallback.PAYOUT_FAILED,
              fails.failure().code(),
              fails.failure().message()));
    }
    if (behaviour instanceof MagicAccounts.Stalls) {
      move(connection, ref, "processing");
      return List.of(callback(ref, ProviderCallback.PAYOUT_PROCESSING, null, null));
    }
    move(connection, ref, "paid");
    return List.of(callback(ref, ProviderCallback.PAYOUT_SUCCEEDED, null, null));
  }

  /**
   * Decides a payout the rail has not finished (queued or unconfirmed), as the test helpers do.
   *
   * @throws SandboxProvider.Refused when it was decided already
   */
  public List<SandboxProvider.SignedCallback> simulate(
      Connection connection, String ref, Action action) throws SQLException {
    return simulate(connection, ref, action, REJECTED);
  }

  /** The reason the test helper's {@code fail} gives when it names none. */
  public static final SandboxProvider.Decline REJECTED =
      new SandboxProvider.Decline(
          "payout_rejected", "The receiving institution rejected the payout (sandbox).");

  /** As {@link #simulate(Connection, String, Action)}, failing for {@code decline}. */
  public List<SandboxProvider.SignedCallback> simulate(
      Connection connection, String ref, Action action, SandboxProvider.Decline decline)
      throws SQLException {
    Book book = lock(connection, ref);
    if (book == null) {
      throw new SandboxProvider.Refused("no sandbox payout " + ref);
    }
    if (!book.status().equals("queued") && !book.status().equals("processing")) {
      throw new SandboxProvider.Refused(
          "the payout was decided (sandbox payout is " + book.status() + ")");
    }
    if (action == Action.SUCCEED) {
      move(connection, ref, "paid");
      return List.of(callback(ref, ProviderCallback.PAYOUT_SUCCEEDED, null, null));
    }
    move(connection, ref, "failed");
    return List.of(
        callback(ref, ProviderCallback.PAYOUT_FAILED, decline.code(), decline.message()));
  }

  /** References of this rail's queued payouts whose batch is due, oldest first. */
  public List<String> dueForBatch(Connection connection, Instant now, int limit)
      throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT provider_ref FROM sandbox_payouts WHERE status = 'queued' AND provider = ?"
                + " AND batch_at <= ? ORDER BY batch_at, provider_ref LIMIT ?")) {
      select.setString(1, name());
      select.setTimestamp(2, Timestamp.from(now));
      select.setInt(3, limit);
      List<String> refs = new ArrayList<>();
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          refs.add(rs.getString(1));
        }
      }
      return refs;
    }
  }

  boolean isBatch() {
    return kind.batch;
  }

  private record Book(String status, String accountNo) {}

  private static Book lock(Connection connection, String ref) throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT status, account_no FROM sandbox_payouts WHERE provider_ref = ? FOR UPDATE")) {
      select.setString(1, ref);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next() ? new Book(rs.getString(1), rs.getString(2)) : null;
      }
    }
  }

  private void move(Connection connection, String ref, String status) throws SQLException {
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE sandbox_payouts SET status = ?, updated_at = ? WHERE provider_ref = ?")) {
      update.setString(1, status);
      update.setTimestamp(2, Timestamp.from(clock.instant()));
      update.setString(3, ref);
      update.executeUpdate();
    }
  }

  private static String bookStatus(PayoutOutcome outcome) {
    return switch (outcome) {
      case PAID -> "paid";
      case FAILED -> "failed";
      case PROCESSING -> "processing";
      case QUEUED -> "queued";
    };
  }

  private SandboxProvider.SignedCallback callback(
      String ref, String type, String code, String message) {
    ProviderCallback callback =
        new ProviderCallback(
            "cb_" + IdType.MESSAGE.generate().substring(4), type, ref, code, message);
    byte[] body = Json.toBytes(callback);
    return new SandboxProvider.SignedCallback(
        body, CallbackSignatures.sign(callbackSecret, body, clock.instant()));
  }
}
