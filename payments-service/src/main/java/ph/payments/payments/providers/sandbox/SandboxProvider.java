package ph.payments.payments.providers.sandbox;

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
import ph.payments.payments.payments.domain.Payment;
import ph.payments.payments.providers.CallbackSignatures;
import ph.payments.payments.providers.ProviderAdapter;
import ph.payments.payments.providers.ProviderCallback;
import ph.payments.payments.providers.QrPayloads;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.outbox.OutboxWriter;

/**
 * A complete sandbox provider: it registers orders in its own table, moves them when told what the
 * customer did (by the test helpers or the hosted checkout page in test mode), and reports each
 * change as a signed callback that goes through {@link
 * ph.payments.payments.providers.ProviderCallbacks}, exactly like a real provider's would.
 *
 * <p>Refunds: cards and e-wallets ({@code card}, {@code ewallet1}, {@code ewallet1_qr}) refund at
 * once; bank transfers are {@code processing} until told the outcome; QR Ph ({@code rail1_qr})
 * cannot refund automatically, so its refunds are queued for manual processing. The test helpers
 * stand in for the bank and for the operators.
 */
public final class SandboxProvider implements ProviderAdapter {

  /** The kinds of provider we simulate, one per method family. */
  public enum Kind {
    /** E-wallet redirect with an app deep link. */
    EWALLET("sandbox_ewallet1", Set.of("ewallet1"), Set.of("PHP")),
    /** E-wallet QR: a QR Ph payload, a branded page and an app deep link. */
    EWALLET_QR("sandbox_ewallet1_qr", Set.of("ewallet1_qr"), Set.of("PHP")),
    /** The QR Ph bank rail: a QR Ph payload and a branded page. */
    QRPH("sandbox_rail1", Set.of("rail1_qr"), Set.of("PHP")),
    /** Cards with 3-D Secure on a provider-hosted page. */
    CARD("sandbox_card", Set.of("card"), Set.of("PHP", "USD")),
    /** Bank transfers: the page shows where to send the money. */
    BANK_TRANSFER("sandbox_bank", Set.of("bank_transfer"), Set.of("PHP"));

    final String providerName;
    final Set<String> methods;
    final Set<String> currencies;

    Kind(String providerName, Set<String> methods, Set<String> currencies) {
      this.providerName = providerName;
      this.methods = methods;
      this.currencies = currencies;
    }
  }

  /** What the customer did, as the sandbox is told. */
  public enum Action {
    /** The customer paid; funds are settling. */
    PAY,
    /** The funds were captured (paying first if the customer had not yet). */
    CAPTURE,
    /** The provider declines the payment. */
    DECLINE,
    /**
     * The card issuer asks the cardholder for a 3-D Secure challenge: the order waits in {@code
     * challenge} (no callback) until the challenge is passed ({@link #CAPTURE}) or failed ({@link
     * #DECLINE}). Only a new order can be challenged.
     */
    CHALLENGE
  }

  /**
   * Why the provider declines, as its callback reports it.
   *
   * @param code the provider's reason, e.g. {@code card_declined}, {@code insufficient_funds}
   * @param message for the customer
   */
  public record Decline(String code, String message) {
    /** The reason the test helpers give. */
    public static final Decline DEFAULT =
        new Decline("payment_declined", "The payment was declined by the provider (sandbox).");

    /** The reason a refund is declined for when the test helper names none. */
    public static final Decline REFUND_DEFAULT =
        new Decline("refund_declined", "The refund was declined by the provider (sandbox).");

    /**
     * The reason a test helper's command body {@code {code?, message?}} asks for (the gateway
     * checked both), the missing parts taken from {@code fallback}.
     */
    public static Decline requested(
        com.fasterxml.jackson.databind.JsonNode body, Decline fallback) {
      if (body == null) {
        return fallback;
      }
      return new Decline(
          body.path("code").isTextual() ? body.get("code").asText() : fallback.code(),
          body.path("message").isTextual() ? body.get("message").asText() : fallback.message());
    }
  }

  /** What the bank or the operators did with a refund that was not answered at once. */
  public enum RefundAction {
    SUCCEED,
    FAIL
  }

  /** A callback as the provider would send it: the body and its signature header. */
  public record SignedCallback(byte[] body, String signature) {}

  /** The sandbox cannot do that to the order in its current state. */
  public static final class Refused extends RuntimeException {
    Refused(String message) {
      super(message, null, false, false);
    }
  }

  /** A sandbox refund of exactly this amount is declined at once ({@code refund_declined}). */
  public static final java.math.BigDecimal REFUND_FAILS = new java.math.BigDecimal("91.91");

  /**
   * A sandbox refund of exactly this amount stays {@code processing} until a test helper decides it
   * (methods that refund at once otherwise; a bank transfer's always waits, QR Ph's is queued for
   * operators).
   */
  public static final java.math.BigDecimal REFUND_STAYS_PROCESSING =
      new java.math.BigDecimal("92.92");

  private final Kind kind;
  private final byte[] callbackSecret;
  private final String publicBaseUrl;
  private final QrPayloads qrPayloads;
  private final Clock clock;

  public SandboxProvider(
      Kind kind, byte[] callbackSecret, String publicBaseUrl, QrPayloads qrPayloads, Clock clock) {
    this.kind = kind;
    this.callbackSecret = callbackSecret.clone();
    this.publicBaseUrl = publicBaseUrl;
    this.qrPayloads = qrPayloads;
    this.clock = clock;
  }

  @Override
  public String name() {
    return kind.providerName;
  }

  @Override
  public Set<String> methods() {
    return kind.methods;
  }

  @Override
  public Set<String> currencies() {
    return kind.currencies;
  }

  @Override
  public Registered register(Connection connection, Registration r) throws SQLException {
    // 25 characters: the most a QR Ph reference label holds. The time-ordered body minus its five
    // slowest-moving characters keeps the random part whole.
    String ref = "sbx_" + IdType.MESSAGE.generate().substring(9);
    Timestamp now = Timestamp.from(clock.instant());
    // The order is written with the payment, in the creation's statement.
    OutboxWriter.Write order =
        new OutboxWriter.Write(
            "INSERT INTO sandbox_orders (provider_ref, provider, payment_id, amount, currency,"
                + " status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'created', ?, ?)",
            (insert, first) -> {
              insert.setString(first, ref);
              insert.setString(first + 1, name());
              insert.setString(first + 2, r.paymentId());
              insert.setBigDecimal(first + 3, r.amount().amount());
              insert.setString(first + 4, r.amount().currency());
              insert.setTimestamp(first + 5, now);
              insert.setTimestamp(first + 6, now);
              return first + 7;
            });
    // The public URLs carry the unguessable token, never the time-ordered payment id.
    String token = r.checkoutToken();
    String page = publicBaseUrl + "/checkout/" + token;
    String qrImage = publicBaseUrl + "/qr/" + token + ".png";
    String appLink = "ewallet1://pay?order=" + ref;
    Payment.Checkout checkout =
        switch (kind) {
          case EWALLET -> new Payment.Checkout(page, null, null, appLink, token);
          case EWALLET_QR ->
              new Payment.Checkout(page, qrPayloads.payload(r, ref), qrImage, appLink, token);
          case QRPH -> new Payment.Checkout(page, qrPayloads.payload(r, ref), qrImage, null, token);
          // The hosted checkout page, where a real card acquirer's 3-D Secure step will go.
          case CARD, BANK_TRANSFER -> new Payment.Checkout(page, null, null, null, token);
        };
    return new Registered(ref, checkout, List.of(order));
  }

  @Override
  public RefundAccepted refund(Connection connection, RefundRequest r) throws SQLException {
    String ref = "sbr_" + IdType.MESSAGE.generate().substring(4);
    RefundOutcome outcome =
        switch (kind) {
          case CARD, EWALLET, EWALLET_QR -> RefundOutcome.SUCCEEDED;
          case BANK_TRANSFER -> RefundOutcome.PROCESSING;
          case QRPH -> RefundOutcome.MANUAL;
        };
    // Magic amounts (docs/refunds-payouts.md): a merchant rehearses a declined refund, or one the
    // provider answers later, with any sandbox method.
    if (r.amount().amount().compareTo(REFUND_FAILS) == 0) {
      outcome = RefundOutcome.FAILED;
    } else if (r.amount().amount().compareTo(REFUND_STAYS_PROCESSING) == 0
        && outcome == RefundOutcome.SUCCEEDED) {
      outcome = RefundOutcome.PROCESSING;
    }
    Instant now = clock.instant();
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO sandbox_refunds (provider_ref, provider, refund_id, order_ref, amount,"
                + " currency, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      insert.setString(1, ref);
      insert.setString(2, name());
      insert.setString(3, r.refundId());
      insert.setString(4, r.orderRef());
      insert.setBigDecimal(5, r.amount().amount());
      insert.setString(6, r.amount().currency());
      insert.setString(
          7,
          switch (outcome) {
            case SUCCEEDED -> "succeeded";
            case FAILED -> "failed";
            case PROCESSING -> "processing";
            case MANUAL -> "manual";
          });
      insert.setTimestamp(8, Timestamp.from(now));
      insert.setTimestamp(9, Timestamp.from(now));
      insert.executeUpdate();
    }
    return new RefundAccepted(
        ref,
        outcome,
        outcome == RefundOutcome.FAILED
            ? new ph.payments.payments.payments.domain.Failure(
                Decline.REFUND_DEFAULT.code(), Decline.REFUND_DEFAULT.message())
            : null);
  }

  /**
   * Decides a refund the provider did not answer at once and returns the callback it sends.
   *
   * @throws Refused when the refund was decided already
   */
  public List<SignedCallback> simulateRefund(
      Connection connection, String refundRef, RefundAction action) throws SQLException {
    return simulateRefund(connection, refundRef, action, Decline.REFUND_DEFAULT);
  }

  /** As {@link #simulateRefund(Connection, String, RefundAction)}, failing for {@code decline}. */
  public List<SignedCallback> simulateRefund(
      Connection connection, String refundRef, RefundAction action, Decline decline)
      throws SQLException {
    String status;
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT status FROM sandbox_refunds WHERE provider_ref = ? FOR UPDATE")) {
      select.setString(1, refundRef);
      try (ResultSet rs = select.executeQuery()) {
        if (!rs.next()) {
          throw new Refused("no sandbox refund " + refundRef);
        }
        status = rs.getString(1);
      }
    }
    require(
        status.equals("processing") || status.equals("manual"), "the refund was decided", status);
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE sandbox_refunds SET status = ?, updated_at = ? WHERE provider_ref = ?")) {
      update.setString(1, action == RefundAction.SUCCEED ? "succeeded" : "failed");
      update.setTimestamp(2, Timestamp.from(clock.instant()));
      update.setString(3, refundRef);
      update.executeUpdate();
    }
    return List.of(
        action == RefundAction.SUCCEED
            ? callback(refundRef, ProviderCallback.REFUND_SUCCEEDED, null, null)
            : callback(
                refundRef, ProviderCallback.REFUND_FAILED, decline.code(), decline.message()));
  }

  @Override
  public java.math.BigDecimal maxAmount() {
    return kind == Kind.EWALLET_QR || kind == Kind.QRPH
        ? ph.payments.payments.qr.QrPhPayload.MAX_AMOUNT
        : null;
  }

  @Override
  public boolean verify(byte[] body, String signature) {
    return CallbackSignatures.verify(callbackSecret, body, signature, clock.instant());
  }

  /**
   * Moves the sandbox order and returns the callbacks the provider sends about it, in order.
   *
   * @throws Refused when the order cannot make that move (e.g. capture after a decline)
   */
  public List<SignedCallback> simulate(Connection connection, String providerRef, Action action)
      throws SQLException {
    return simulate(connection, providerRef, action, Decline.DEFAULT);
  }

  /**
   * As {@link #simulate(Connection, String, Action)}, declining (when {@code action} is {@link
   * Action#DECLINE}) for {@code decline}'s reason.
   */
  public List<SignedCallback> simulate(
      Connection connection, String providerRef, Action action, Decline decline)
      throws SQLException {
    String status = lockStatus(connection, providerRef);
    List<SignedCallback> callbacks = new ArrayList<>();
    switch (action) {
      case PAY -> {
        require(status.equals("created"), "only a new order can be paid", status);
        move(connection, providerRef, "paid");
        callbacks.add(callback(providerRef, ProviderCallback.PAID, null, null));
      }
      case CAPTURE -> {
        require(
            status.equals("created") || status.equals("paid") || status.equals("challenge"),
            "nothing to capture",
            status);
        if (!status.equals("paid")) {
          callbacks.add(callback(providerRef, ProviderCallback.PAID, null, null));
        }
        move(connection, providerRef, "captured");
        callbacks.add(callback(providerRef, ProviderCallback.CAPTURED, null, null));
      }
      case DECLINE -> {
        require(
            status.equals("created") || status.equals("paid") || status.equals("challenge"),
            "cannot decline",
            status);
        move(connection, providerRef, "declined");
        callbacks.add(
            callback(providerRef, ProviderCallback.DECLINED, decline.code(), decline.message()));
      }
      case CHALLENGE -> {
        require(status.equals("created"), "only a new order can be challenged", status);
        move(connection, providerRef, "challenge");
      }
    }
    return callbacks;
  }

  /**
   * Where the customer sends a bank transfer for order {@code providerRef}: the sandbox's own
   * collection account, with the order's reference to quote; null for other kinds.
   */
  public TransferInstructions transferInstructions(String providerRef) {
    return kind == Kind.BANK_TRANSFER
        ? new TransferInstructions(
            "Sandbox Bank (test)", "Payments Collection (sandbox)", "0000 1234 5678", providerRef)
        : null;
  }

  /** A bank transfer's destination, as the checkout page shows it. */
  public record TransferInstructions(
      String bank, String accountName, String accountNumber, String reference) {}

  /**
   * The sandbox order's status ({@code created}, {@code challenge}, {@code paid}, {@code captured},
   * {@code declined}), or null when there is no such order.
   */
  public String orderStatus(Connection connection, String providerRef) throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement("SELECT status FROM sandbox_orders WHERE provider_ref = ?")) {
      select.setString(1, providerRef);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  private SignedCallback callback(String ref, String type, String code, String message) {
    ProviderCallback callback =
        new ProviderCallback(
            "cb_" + IdType.MESSAGE.generate().substring(4), type, ref, code, message);
    byte[] body = Json.toBytes(callback);
    return new SignedCallback(body, CallbackSignatures.sign(callbackSecret, body, clock.instant()));
  }

  private static String lockStatus(Connection connection, String ref) throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT status FROM sandbox_orders WHERE provider_ref = ? FOR UPDATE")) {
      select.setString(1, ref);
      try (ResultSet rs = select.executeQuery()) {
        if (!rs.next()) {
          throw new Refused("no sandbox order " + ref);
        }
        return rs.getString(1);
      }
    }
  }

  private void move(Connection connection, String ref, String status) throws SQLException {
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE sandbox_orders SET status = ?, updated_at = ? WHERE provider_ref = ?")) {
      update.setString(1, status);
      update.setTimestamp(2, Timestamp.from(clock.instant()));
      update.setString(3, ref);
      update.executeUpdate();
    }
  }

  private static void require(boolean condition, String message, String status) {
    if (!condition) {
      throw new Refused(message + " (sandbox order is " + status + ")");
    }
  }
}
