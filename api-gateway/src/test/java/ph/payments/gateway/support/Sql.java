package ph.payments.gateway.support;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import ph.payments.platform.tx.SqlWork;
import ph.payments.platform.tx.Transactions;

/** Looks into the gateway's database from a test, to check what a request really wrote. */
public final class Sql {

  private final Transactions transactions;

  public Sql(Transactions transactions) {
    this.transactions = transactions;
  }

  /** The single number a counting query answers, e.g. {@code SELECT count(*) FROM commands}. */
  public long number(String query, Object... parameters) {
    return query(query, parameters, row -> row.next() ? row.getLong(1) : 0L);
  }

  /** The first column of the first row a query answers, as text (null when there is no row). */
  public String text(String query, Object... parameters) {
    return query(query, parameters, row -> row.next() ? row.getString(1) : null);
  }

  private interface Reader<T> {
    T read(ResultSet row) throws SQLException;
  }

  private <T> T query(String query, Object[] parameters, Reader<T> reader) {
    SqlWork<T> work =
        connection -> {
          try (PreparedStatement statement = connection.prepareStatement(query)) {
            for (int i = 0; i < parameters.length; i++) {
              statement.setObject(i + 1, parameters[i]);
            }
            try (ResultSet row = statement.executeQuery()) {
              return reader.read(row);
            }
          }
        };
    return transactions.inTransaction(work);
  }
}
