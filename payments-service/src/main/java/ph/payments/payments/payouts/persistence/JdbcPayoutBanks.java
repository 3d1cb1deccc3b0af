package ph.payments.payments.payouts.persistence;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The payout bank-code registry ({@code payout_banks}, loaded from {@code db/data/payout_banks.csv}
 * by the migration {@code R__Payout_bank_registry}).
 */
@Singleton
public class JdbcPayoutBanks {

  /**
   * One institution of the registry.
   *
   * @param brstn its routing number when the registry has it, else null
   * @param status 1 active (payouts accepted), 0 inactive
   */
  public record PayoutBank(String code, String name, String brstn, int status) {

    public boolean active() {
      return status == 1;
    }
  }

  /**
   * Up to {@code rows} institutions ordered by code, after {@code startingAfter} (a code; null for
   * the first page).
   */
  public List<PayoutBank> page(Connection connection, String startingAfter, int rows)
      throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT code, name, brstn, status FROM payout_banks"
                + " WHERE (?::text IS NULL OR code > ?) ORDER BY code LIMIT ?")) {
      select.setString(1, startingAfter);
      select.setString(2, startingAfter);
      select.setInt(3, rows);
      try (ResultSet rs = select.executeQuery()) {
        List<PayoutBank> banks = new ArrayList<>();
        while (rs.next()) {
          banks.add(read(rs));
        }
        return banks;
      }
    }
  }

  public Optional<PayoutBank> find(Connection connection, String code) throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT code, name, brstn, status FROM payout_banks WHERE code = ?")) {
      select.setString(1, code);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next() ? Optional.of(read(rs)) : Optional.empty();
      }
    }
  }

  private static PayoutBank read(ResultSet rs) throws SQLException {
    return new PayoutBank(
        rs.getString("code"), rs.getString("name"), rs.getString("brstn"), rs.getShort("status"));
  }
}
