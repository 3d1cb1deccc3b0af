package ph.payments.payments.invoices.persistence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.inject.Singleton;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.Date;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import ph.payments.payments.invoices.domain.Invoice;
import ph.payments.payments.invoices.domain.InvoiceKind;
import ph.payments.payments.invoices.domain.InvoiceStatus;
import ph.payments.payments.invoices.domain.LineItem;
import ph.payments.payments.persistence.PagedQuery;
import ph.payments.platform.json.Json;

/** Invoices in PostgreSQL. Every method runs on the caller's connection (its transaction). */
@Singleton
public class JdbcInvoices {

  private static final String COLUMNS =
      "id, merchant_id, environment, kind, number, status, amount, subtotal, tax_amount,"
          + " discount_amount, currency, description, line_items, customer_id, due_date, notes,"
          + " terms, allow_partial_payment, amount_paid, deposit_rate, deposit_due_at,"
          + " balance_due_at, shipment_id, forfeited_at, issued_at, sent_at, paid_at, void_at,"
          + " payment_id, metadata, token, balance_due_announced_at, created_at, updated_at";

  private static final String UNIQUE_VIOLATION = "23505";

  /**
   * Inserts the invoice unless its token is taken, behind a savepoint so the caller can draw
   * another.
   *
   * @return false when the token is taken; nothing was written then
   */
  public boolean insert(Connection connection, Invoice invoice) throws SQLException {
    Savepoint savepoint = connection.setSavepoint();
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO invoices ("
                + COLUMNS
                + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?, ?, ?, ?,"
                + " ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?)")) {
      int i = 1;
      insert.setString(i++, invoice.id());
      insert.setString(i++, invoice.merchantId());
      insert.setString(i++, invoice.environment());
      insert.setString(i++, invoice.kind().wire());
      i = setState(insert, i, invoice);
      insert.setString(i++, invoice.token());
      insert.setTimestamp(i++, PagedQuery.timestamp(invoice.balanceDueAnnouncedAt()));
      insert.setTimestamp(i++, Timestamp.from(invoice.createdAt()));
      insert.setTimestamp(i, Timestamp.from(invoice.updatedAt()));
      insert.executeUpdate();
    } catch (SQLException e) {
      if (UNIQUE_VIOLATION.equals(e.getSQLState())) {
        connection.rollback(savepoint);
        return false;
      }
      throw e;
    }
    connection.releaseSavepoint(savepoint);
    return true;
  }

  /** Writes every changeable column. Call with the invoice locked. */
  public void update(Connection connection, Invoice invoice) throws SQLException {
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE invoices SET number = ?, status = ?, amount = ?, subtotal = ?,"
                + " tax_amount = ?, discount_amount = ?, currency = ?, description = ?,"
                + " line_items = ?::jsonb, customer_id = ?, due_date = ?, notes = ?, terms = ?,"
                + " allow_partial_payment = ?, amount_paid = ?, deposit_rate = ?,"
                + " deposit_due_at = ?, balance_due_at = ?, shipment_id = ?, forfeited_at = ?,"
                + " issued_at = ?, sent_at = ?, paid_at = ?, void_at = ?, payment_id = ?,"
                + " metadata = ?::jsonb, balance_due_announced_at = ?, updated_at = ?"
                + " WHERE id = ?")) {
      int i = setState(update, 1, invoice);
      update.setTimestamp(i++, PagedQuery.timestamp(invoice.balanceDueAnnouncedAt()));
      update.setTimestamp(i++, Timestamp.from(invoice.updatedAt()));
      update.setString(i, invoice.id());
      if (update.executeUpdate() != 1) {
        throw new IllegalStateException("invoice " + invoice.id() + " vanished");
      }
    }
  }

  public Optional<Invoice> find(Connection connection, String id) throws SQLException {
    return one(connection, "SELECT " + COLUMNS + " FROM invoices WHERE id = ?", id);
  }

  /** The invoice, locked for the rest of the transaction. */
  public Optional<Invoice> lock(Connection connection, String id) throws SQLException {
    return one(connection, "SELECT " + COLUMNS + " FROM invoices WHERE id = ? FOR UPDATE", id);
  }

  public Optional<Invoice> findByToken(Connection connection, String token) throws SQLException {
    return one(connection, "SELECT " + COLUMNS + " FROM invoices WHERE token = ?", token);
  }

  /**
   * The next number of the merchant's environment in {@code year}: the counter row is created or
   * incremented, and stays locked until the caller's transaction ends, so concurrent sends queue
   * and take consecutive numbers; a rollback gives the number back.
   */
  public long nextNumber(Connection connection, String merchantId, String environment, int year)
      throws SQLException {
    try (PreparedStatement upsert =
        connection.prepareStatement(
            "INSERT INTO invoice_numbers (merchant_id, environment, year, last_number)"
                + " VALUES (?, ?, ?, 1) ON CONFLICT (merchant_id, environment, year)"
                + " DO UPDATE SET last_number = invoice_numbers.last_number + 1"
                + " RETURNING last_number")) {
      upsert.setString(1, merchantId);
      upsert.setString(2, environment);
      upsert.setInt(3, year);
      try (ResultSet rs = upsert.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** Ties a payment (just inserted in this transaction) to the invoice it pays. */
  public void linkPayment(Connection connection, String paymentId, String invoiceId)
      throws SQLException {
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO invoice_payments (payment_id, invoice_id) VALUES (?, ?)")) {
      insert.setString(1, paymentId);
      insert.setString(2, invoiceId);
      insert.executeUpdate();
    }
  }

  /** The invoice a payment pays, if any. */
  public Optional<String> invoiceOf(Connection connection, String paymentId) throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT invoice_id FROM invoice_payments WHERE payment_id = ?")) {
      select.setString(1, paymentId);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
      }
    }
  }

  /** A payment of the invoice that may still succeed (pending or processing), if any. */
  public Optional<String> openPaymentOf(Connection connection, String invoiceId)
      throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT p.id FROM invoice_payments ip JOIN payments p ON p.id = ip.payment_id"
                + " WHERE ip.invoice_id = ? AND p.status IN ('pending', 'processing')"
                + " ORDER BY p.id LIMIT 1")) {
      select.setString(1, invoiceId);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
      }
    }
  }

  /** The kind of the invoice a payment pays, if it pays one. */
  public Optional<InvoiceKind> kindPaidBy(Connection connection, String paymentId)
      throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT i.kind FROM invoice_payments ip JOIN invoices i ON i.id = ip.invoice_id"
                + " WHERE ip.payment_id = ?")) {
      select.setString(1, paymentId);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next() ? Optional.of(InvoiceKind.fromWire(rs.getString(1))) : Optional.empty();
      }
    }
  }

  /** A succeeded (or later refunded) payment of an invoice, as its page shows it. */
  public record PaidPayment(
      String id,
      BigDecimal amount,
      BigDecimal refunded,
      String method,
      Instant succeededAt,
      String checkoutToken) {}

  /** The invoice's payments that succeeded (refunded ones included), oldest success first. */
  public List<PaidPayment> paidPayments(Connection connection, String invoiceId)
      throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT p.id, p.amount, p.refunded_amount, p.method, p.succeeded_at, p.checkout_token"
                + " FROM invoice_payments ip JOIN payments p ON p.id = ip.payment_id"
                + " WHERE ip.invoice_id = ? AND p.succeeded_at IS NOT NULL"
                + " ORDER BY p.succeeded_at, p.id")) {
      select.setString(1, invoiceId);
      List<PaidPayment> paid = new ArrayList<>();
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          paid.add(
              new PaidPayment(
                  rs.getString(1),
                  rs.getBigDecimal(2),
                  rs.getBigDecimal(3),
                  rs.getString(4),
                  rs.getTimestamp(5).toInstant(),
                  rs.getString(6)));
        }
      }
      return paid;
    }
  }

  /**
   * Ids after {@code after} (null: from the start) of invoices the deadline job has something to do
   * for at {@code now}: a deposit window passed with the deposit unpaid, or a balance due not yet
   * announced (deposit paid, or the term elapsed). The job re-checks each under its lock.
   */
  public List<String> withDeadlines(Connection connection, Instant now, String after, int limit)
      throws SQLException {
    String deposit = "round(amount * deposit_rate, 2)";
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT id FROM invoices WHERE status IN ('sent', 'partial') AND id > ? AND ("
                + " (deposit_rate IS NOT NULL AND deposit_due_at <= ? AND amount_paid < "
                + deposit
                + ") OR (balance_due_announced_at IS NULL AND amount_paid < amount AND"
                + " (balance_due_at <= ? OR (deposit_rate IS NOT NULL AND amount_paid >= "
                + deposit
                + ")))) ORDER BY id LIMIT ?")) {
      select.setString(1, after == null ? "" : after);
      select.setTimestamp(2, Timestamp.from(now));
      select.setTimestamp(3, Timestamp.from(now));
      select.setInt(4, limit);
      List<String> ids = new ArrayList<>();
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          ids.add(rs.getString(1));
        }
      }
      return ids;
    }
  }

  /**
   * A page of a merchant's invoices, ascending by id; {@code status}, {@code customerId} optional.
   */
  public List<Invoice> list(
      Connection connection,
      String merchantId,
      String environment,
      InvoiceStatus status,
      String customerId,
      String startingAfter,
      int limit)
      throws SQLException {
    return PagedQuery.from("SELECT " + COLUMNS + " FROM invoices", "id", merchantId, environment)
        .where("status = ?", status == null ? null : status.wire())
        .where("customer_id = ?", customerId)
        .page(connection, startingAfter, limit, JdbcInvoices::read);
  }

  private static int setState(PreparedStatement s, int i, Invoice v) throws SQLException {
    s.setString(i++, v.number());
    s.setString(i++, v.status().wire());
    s.setBigDecimal(i++, v.amount());
    s.setBigDecimal(i++, v.subtotal());
    s.setBigDecimal(i++, v.taxAmount());
    s.setBigDecimal(i++, v.discountAmount());
    s.setString(i++, v.currency());
    s.setString(i++, v.description());
    s.setString(i++, lineItemsJson(v.lineItems()));
    s.setString(i++, v.customerId());
    s.setDate(i++, v.dueDate() == null ? null : Date.valueOf(v.dueDate()));
    s.setString(i++, v.notes());
    s.setString(i++, v.terms());
    s.setBoolean(i++, v.allowPartialPayment());
    s.setBigDecimal(i++, v.amountPaid());
    s.setBigDecimal(i++, v.depositRate());
    s.setTimestamp(i++, PagedQuery.timestamp(v.depositDueAt()));
    s.setTimestamp(i++, PagedQuery.timestamp(v.balanceDueAt()));
    s.setString(i++, v.shipmentId());
    s.setTimestamp(i++, PagedQuery.timestamp(v.forfeitedAt()));
    s.setTimestamp(i++, PagedQuery.timestamp(v.issuedAt()));
    s.setTimestamp(i++, PagedQuery.timestamp(v.sentAt()));
    s.setTimestamp(i++, PagedQuery.timestamp(v.paidAt()));
    s.setTimestamp(i++, PagedQuery.timestamp(v.voidAt()));
    s.setString(i++, v.paymentId());
    s.setString(i++, v.metadataJson());
    return i;
  }

  /** Line items as stored: exact decimals as JSON numbers. */
  static String lineItemsJson(List<LineItem> lines) {
    ArrayNode array = Json.mapper().createArrayNode();
    for (LineItem line : lines) {
      ObjectNode item = array.addObject();
      item.put("description", line.description());
      item.put("quantity", line.quantity());
      item.put("unit_amount", line.unitAmount());
      item.put("amount", line.amount());
    }
    return Json.toText(array);
  }

  static List<LineItem> lineItems(String json) {
    List<LineItem> lines = new ArrayList<>();
    for (JsonNode item : Json.tree(json)) {
      lines.add(
          new LineItem(
              item.get("description").asText(),
              item.get("quantity").decimalValue(),
              item.get("unit_amount").decimalValue(),
              item.get("amount").decimalValue().setScale(2)));
    }
    return lines;
  }

  private static Optional<Invoice> one(Connection connection, String sql, String arg)
      throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(sql)) {
      select.setString(1, arg);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next() ? Optional.of(read(rs)) : Optional.empty();
      }
    }
  }

  private static Invoice read(ResultSet rs) throws SQLException {
    Date due = rs.getDate("due_date");
    BigDecimal rate = rs.getBigDecimal("deposit_rate");
    return new Invoice(
        rs.getString("id"),
        rs.getString("merchant_id"),
        rs.getString("environment"),
        InvoiceKind.fromWire(rs.getString("kind")),
        rs.getString("number"),
        InvoiceStatus.fromWire(rs.getString("status")),
        rs.getBigDecimal("amount"),
        rs.getBigDecimal("subtotal"),
        rs.getBigDecimal("tax_amount"),
        rs.getBigDecimal("discount_amount"),
        rs.getString("currency"),
        rs.getString("description"),
        lineItems(rs.getString("line_items")),
        rs.getString("customer_id"),
        due == null ? null : due.toLocalDate(),
        rs.getString("notes"),
        rs.getString("terms"),
        rs.getBoolean("allow_partial_payment"),
        rs.getBigDecimal("amount_paid"),
        rate == null ? null : rate.stripTrailingZeros(),
        PagedQuery.instant(rs, "deposit_due_at"),
        PagedQuery.instant(rs, "balance_due_at"),
        rs.getString("shipment_id"),
        PagedQuery.instant(rs, "forfeited_at"),
        PagedQuery.instant(rs, "issued_at"),
        PagedQuery.instant(rs, "sent_at"),
        PagedQuery.instant(rs, "paid_at"),
        PagedQuery.instant(rs, "void_at"),
        rs.getString("payment_id"),
        rs.getString("metadata"),
        rs.getString("token"),
        PagedQuery.instant(rs, "balance_due_announced_at"),
        rs.getTimestamp("created_at").toInstant(),
        rs.getTimestamp("updated_at").toInstant());
  }
}
