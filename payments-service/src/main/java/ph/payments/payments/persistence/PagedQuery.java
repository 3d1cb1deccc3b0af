package ph.payments.payments.persistence;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A page of one merchant's rows in one environment, ascending by id after {@code starting_after}:
 * the query every list of the internal API runs, with its filters, written once. Also the small
 * conversions every row mapper needs. New resources use this instead of another copy (STYLE, "known
 * debt").
 *
 * <pre>{@code
 * List<PaymentLink> page =
 *     PagedQuery.from("SELECT … FROM payment_links", "id", merchantId, environment)
 *         .where("status = ?", status)   // skipped when status is null
 *         .page(connection, startingAfter, limit, JdbcPaymentLinks::read);
 * }</pre>
 */
public final class PagedQuery {

  /** Maps the current row of a result set. */
  @FunctionalInterface
  public interface RowMapper<T> {
    T map(ResultSet rs) throws SQLException;
  }

  private final StringBuilder sql;
  private final String idColumn;
  private final List<Object> args = new ArrayList<>();

  private PagedQuery(String select, String idColumn, String merchantColumn, String envColumn) {
    this.sql =
        new StringBuilder(select)
            .append(" WHERE ")
            .append(merchantColumn)
            .append(" = ? AND ")
            .append(envColumn)
            .append(" = ?");
    this.idColumn = idColumn;
  }

  /**
   * @param select {@code SELECT … FROM …} without a WHERE clause
   * @param idColumn the id column, optionally qualified ({@code q.id}); its table's {@code
   *     merchant_id} and {@code environment} scope the rows
   */
  public static PagedQuery from(
      String select, String idColumn, String merchantId, String environment) {
    String prefix = idColumn.contains(".") ? idColumn.substring(0, idColumn.indexOf('.') + 1) : "";
    PagedQuery query =
        new PagedQuery(select, idColumn, prefix + "merchant_id", prefix + "environment");
    query.args.add(merchantId);
    query.args.add(environment);
    return query;
  }

  /** Adds {@code AND condition} with its one argument, unless {@code value} is null. */
  public PagedQuery where(String condition, Object value) {
    if (value != null) {
      sql.append(" AND ").append(condition);
      args.add(value);
    }
    return this;
  }

  /**
   * Runs the query: rows after {@code startingAfter} (if any), ascending, at most {@code limit}.
   */
  public <T> List<T> page(
      Connection connection, String startingAfter, int limit, RowMapper<T> mapper)
      throws SQLException {
    where(idColumn + " > ?", startingAfter);
    sql.append(" ORDER BY ").append(idColumn).append(" LIMIT ?");
    args.add(limit);
    try (PreparedStatement select = connection.prepareStatement(sql.toString())) {
      for (int i = 0; i < args.size(); i++) {
        select.setObject(i + 1, args.get(i));
      }
      List<T> rows = new ArrayList<>();
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          rows.add(mapper.map(rs));
        }
      }
      return rows;
    }
  }

  /** A nullable {@code timestamptz} column as an instant. */
  public static Instant instant(ResultSet rs, String column) throws SQLException {
    Timestamp value = rs.getTimestamp(column);
    return value == null ? null : value.toInstant();
  }

  /** A nullable instant as a {@code timestamptz} parameter. */
  public static Timestamp timestamp(Instant instant) {
    return instant == null ? null : Timestamp.from(instant);
  }
}
