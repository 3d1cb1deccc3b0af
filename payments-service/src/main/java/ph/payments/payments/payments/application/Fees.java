package ph.payments.payments.payments.application;

import com.fasterxml.jackson.databind.JsonNode;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import ph.payments.contracts.commands.Command;
import ph.payments.payments.payments.domain.FeeSchedule;
import ph.payments.platform.inbox.ReadAhead;

/**
 * The fee schedule of a merchant's method: its own row in {@code merchant_fees}, or the default.
 */
@Singleton
public class Fees {

  private static final String SELECT =
      "SELECT percent, fixed_amount FROM merchant_fees WHERE merchant_id = ? AND method = ?";

  private static FeeSchedule scheduleFor(Connection connection, String merchantId, String method)
      throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(SELECT)) {
      select.setString(1, merchantId);
      select.setString(2, method);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next()
            ? new FeeSchedule(rs.getBigDecimal(1), rs.getBigDecimal(2))
            : FeeSchedule.defaultFor(method);
      }
    }
  }

  /**
   * The schedule as {@code readAhead} read it for the command's poll when it asked for this
   * merchant's method, else as {@link #scheduleFor(Connection, String, String)} reads it now.
   */
  public FeeSchedule scheduleFor(
      Connection connection, ReadAhead readAhead, String merchantId, String method)
      throws SQLException {
    if (readAhead instanceof Schedules schedules) {
      Key key = new Key(merchantId, method);
      if (schedules.asked.contains(key)) {
        FeeSchedule own = schedules.found.get(key);
        return own != null ? own : FeeSchedule.defaultFor(method);
      }
    }
    return scheduleFor(connection, merchantId, method);
  }

  /**
   * The schedules the poll's creations ({@link CreatePayment}) name by their body's {@code method},
   * to be read with the poll's inbox statement; null when the poll names none, or when it sets a
   * merchant's fee ({@link SetMerchantFee}): a creation after that command in the poll must see the
   * new fee, which a read ahead of the poll cannot.
   */
  public ReadAhead readAhead(List<Command> poll) {
    Set<Key> asked = new LinkedHashSet<>();
    for (Command command : poll) {
      if (SetMerchantFee.TYPE.equals(command.type())) {
        return null;
      }
      JsonNode method = command.body() == null ? null : command.body().get("method");
      if (CreatePayment.TYPE.equals(command.type())
          && command.merchantId() != null
          && method != null
          && method.isTextual()) {
        asked.add(new Key(command.merchantId(), method.asText()));
      }
    }
    return asked.isEmpty() ? null : new Schedules(asked);
  }

  private record Key(String merchantId, String method) {}

  /** The poll's merchants' own schedules of the methods asked; a method without one: default. */
  private static final class Schedules implements ReadAhead {
    private final Set<Key> asked;
    private final Map<Key, FeeSchedule> found = new HashMap<>();

    Schedules(Set<Key> asked) {
      this.asked = asked;
    }

    @Override
    public String sql() {
      return "SELECT f.merchant_id, f.method, f.percent, f.fixed_amount FROM merchant_fees f"
          + " JOIN unnest(?::text[], ?::text[]) AS a(merchant_id, method)"
          + " ON f.merchant_id = a.merchant_id AND f.method = a.method";
    }

    @Override
    public int bind(PreparedStatement statement, int first) throws SQLException {
      List<String> merchants = new ArrayList<>(asked.size());
      List<String> methods = new ArrayList<>(asked.size());
      for (Key key : asked) {
        merchants.add(key.merchantId());
        methods.add(key.method());
      }
      Connection connection = statement.getConnection();
      statement.setArray(first, connection.createArrayOf("text", merchants.toArray()));
      statement.setArray(first + 1, connection.createArrayOf("text", methods.toArray()));
      return 2;
    }

    @Override
    public void read(ResultSet rows) throws SQLException {
      while (rows.next()) {
        found.put(
            new Key(rows.getString(1), rows.getString(2)),
            new FeeSchedule(rows.getBigDecimal(3), rows.getBigDecimal(4)));
      }
    }
  }
}
