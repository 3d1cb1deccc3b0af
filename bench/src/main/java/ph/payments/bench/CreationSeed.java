package ph.payments.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;

/**
 * Fills the system up to {@code target} stored payments with SQL, as if they had been created
 * through the API over the past weeks (bench/run-creation-growth). Every table a creation writes
 * and keeps gets its row per payment, copied from a real creation (the template) with the ids
 * replaced:
 *
 * <ul>
 *   <li>payments-service: {@code payments} (70 % succeeded, 20 % expired, 10 % failed, across 1,000
 *       merchants), {@code sandbox_orders}, and the command's {@code inbox} row;
 *   <li>api-gateway: {@code commands} (with the recorded reply) and the reply's {@code inbox} row.
 * </ul>
 *
 * Not seeded: outbox rows (published rows are purged after an hour), idempotency records (purged
 * after 24 hours, and the creation benchmark sends no {@code Idempotency-Key}), events (creation
 * emits none and never reads the log) and rate-limit rows (one per key, pruned).
 *
 * <p>Rows are copied generically ({@code jsonb_populate_record} over the template row with
 * replacements), so a column added to these tables later is seeded too. The function sits in {@code
 * FROM} ({@code LATERAL}): as {@code (f(…)).*} in the select list PostgreSQL would call it once per
 * column, thirty times slower.
 *
 * <p>Arguments: gateway URL, admin token, gateway JDBC URL, payments JDBC URL, target.
 */
public final class CreationSeed {

  private static final int CHUNK = 100_000;

  // Row g of the seed: ids time-ordered like the system's (10 characters of milliseconds, then
  // 16 that make them unique), one creation every two seconds, merchants taken in turn.
  private static final String SEED_ROWS =
      "CREATE TEMP TABLE seed ON COMMIT DROP AS SELECT g,"
          + " to_timestamp((?::bigint + g * 2000) / 1000.0) AS at,"
          + " pg_temp.b32(?::bigint + g * 2000, 10) || '000' || pg_temp.b32(g, 13) AS body,"
          + " 'sbx_' || pg_temp.b32(g, 13) || pg_temp.b32(?::bigint + g * 2000, 8) AS ref,"
          + " 'mer_0000000000000' || pg_temp.b32(g % 1000, 13) AS merchant,"
          + " CASE WHEN g % 10 < 7 THEN 'succeeded' WHEN g % 10 < 9 THEN 'expired'"
          + "  ELSE 'failed' END AS status"
          + " FROM generate_series(?::bigint, ?::bigint) AS g";

  private static final String PAYMENTS =
      "INSERT INTO payments SELECT r.* FROM template_payment t, seed s,"
          + " LATERAL jsonb_populate_record(NULL::payments,"
          + " replace(replace(to_jsonb(t)::text, t.id, 'pay_' || s.body), t.provider_ref, s.ref)::jsonb"
          + " || jsonb_build_object('merchant_id', s.merchant, 'status', s.status,"
          + "  'created_at', s.at, 'updated_at', s.at + interval '1 minute',"
          + "  'expires_at', s.at + interval '30 minutes',"
          + "  'net_amount', CASE WHEN s.status = 'succeeded' THEN t.amount - t.fee_amount END,"
          + "  'succeeded_at', CASE WHEN s.status = 'succeeded' THEN s.at + interval '1 minute' END,"
          + "  'failed_at', CASE WHEN s.status = 'failed' THEN s.at + interval '1 minute' END,"
          + "  'failure_code', CASE WHEN s.status = 'failed' THEN 'payment_declined' END,"
          + "  'failure_message', CASE WHEN s.status = 'failed'"
          + "   THEN 'The customer''s payment was declined.' END)) AS r";

  private static final String SANDBOX_ORDERS =
      "INSERT INTO sandbox_orders SELECT r.* FROM template_order o, seed s,"
          + " LATERAL jsonb_populate_record(NULL::sandbox_orders,"
          + " replace(replace(to_jsonb(o)::text, o.payment_id, 'pay_' || s.body),"
          + "  o.provider_ref, s.ref)::jsonb"
          + " || jsonb_build_object('status', CASE s.status WHEN 'succeeded' THEN 'captured'"
          + "   WHEN 'failed' THEN 'declined' ELSE 'created' END,"
          + "  'created_at', s.at, 'updated_at', s.at + interval '1 minute')) AS r";

  private static final String PAYMENTS_INBOX =
      "INSERT INTO inbox (consumer, message_id, processed_at)"
          + " SELECT i.consumer, 'cmd_' || s.body, s.at FROM template_inbox i, seed s";

  private static final String COMMANDS =
      "INSERT INTO commands SELECT r.* FROM template_command c, seed s,"
          + " LATERAL jsonb_populate_record(NULL::commands,"
          + " replace(replace(replace(to_jsonb(c)::text, c.command_id, 'cmd_' || s.body),"
          + "  c.resource_id, 'pay_' || s.body), ?, s.ref)::jsonb"
          + " || jsonb_build_object('merchant_id', s.merchant, 'created_at', s.at,"
          + "  'replied_at', s.at + interval '50 milliseconds')) AS r";

  private static final String GATEWAY_INBOX =
      "INSERT INTO inbox (consumer, message_id, processed_at)"
          + " SELECT i.consumer, 'msg_' || s.body, s.at + interval '50 milliseconds'"
          + " FROM template_inbox i, seed s";

  public static void main(String[] args) throws Exception {
    Api api = new Api(args[0], args[1]);
    String gatewayJdbc = args[2];
    String paymentsJdbc = args[3];
    long target = Long.parseLong(args[4]);

    try (Connection gateway = DriverManager.getConnection(gatewayJdbc);
        Connection payments = DriverManager.getConnection(paymentsJdbc)) {
      long stored = scalar(payments, "SELECT count(*) FROM payments");
      if (stored >= target) {
        System.out.printf(Locale.ROOT, "%,d payments stored already%n", stored);
        return;
      }
      String merchant = api.createMerchant("Seed template");
      String key = api.createKeys(merchant, 1, 100).next();
      String template = api.createPayment(key).get("id").asText();
      String command =
          text(gateway, "SELECT command_id FROM commands WHERE resource_id = ?", template);
      String reply = text(payments, "SELECT message_id FROM outbox WHERE message_key = ?", command);
      String providerRef =
          text(payments, "SELECT provider_ref FROM payments WHERE id = ?", template);
      awaitRow(gateway, "SELECT count(*) FROM inbox WHERE message_id = ?", reply);

      long started = System.nanoTime();
      long base = System.currentTimeMillis() - 60L * 24 * 3600 * 1000;
      // Row numbers continue after what is stored, so a second seeding never repeats an id.
      long first = stored + 1;
      for (long from = first; from <= target; from += CHUNK) {
        long to = Math.min(target, from + CHUNK - 1);
        seed(
            payments,
            base,
            from,
            to,
            template("template_payment", "payments", "id", template),
            template("template_order", "sandbox_orders", "payment_id", template),
            template("template_inbox", "inbox", "message_id", command),
            new Step(PAYMENTS),
            new Step(SANDBOX_ORDERS),
            new Step(PAYMENTS_INBOX));
        seed(
            gateway,
            base,
            from,
            to,
            template("template_command", "commands", "command_id", command),
            template("template_inbox", "inbox", "message_id", reply),
            new Step(COMMANDS, providerRef),
            new Step(GATEWAY_INBOX));
        System.out.printf(Locale.ROOT, "seeded up to %,d%n", to);
      }
      for (Connection db : new Connection[] {payments, gateway}) {
        try (Statement statement = db.createStatement()) {
          statement.execute("VACUUM (ANALYZE) inbox");
          statement.execute(
              db == payments ? "VACUUM (ANALYZE) payments" : "VACUUM (ANALYZE) commands");
          if (db == payments) {
            statement.execute("VACUUM (ANALYZE) sandbox_orders");
          }
          statement.execute("CHECKPOINT");
        }
      }
      System.out.printf(
          Locale.ROOT,
          "seeded %,d payments (now %,d stored) in %.0f s%n",
          target - stored,
          scalar(payments, "SELECT count(*) FROM payments"),
          (System.nanoTime() - started) / 1e9);
    }
  }

  /** One SQL statement of a seeding transaction, with its parameters. */
  private record Step(String sql, String... parameters) {}

  /**
   * The template row, copied into a one-row temporary table first: joined to the seed rows
   * directly, a table whose statistics still say "nearly empty" (it grows by 100,000 rows per
   * chunk) gets a sequential scan per seed row.
   */
  private static Step template(String name, String table, String key, String value) {
    return new Step(
        "CREATE TEMP TABLE "
            + name
            + " ON COMMIT DROP AS SELECT * FROM "
            + table
            + " WHERE "
            + key
            + " = ?",
        value);
  }

  /** In one transaction: the seed rows {@code from..to}, then each statement. */
  private static void seed(Connection db, long base, long from, long to, Step... steps)
      throws SQLException {
    db.setAutoCommit(false);
    try {
      try (Statement statement = db.createStatement()) {
        // Compiling these one-off statements would take longer than running them.
        statement.execute("SET LOCAL jit = off");
        statement.execute(SeedSql.BASE32_FUNCTION);
      }
      try (PreparedStatement rows = db.prepareStatement(SEED_ROWS)) {
        rows.setLong(1, base);
        rows.setLong(2, base);
        rows.setLong(3, base);
        rows.setLong(4, from);
        rows.setLong(5, to);
        rows.execute();
      }
      try (Statement statement = db.createStatement()) {
        statement.execute("ANALYZE seed");
      }
      for (Step step : steps) {
        try (PreparedStatement prepared = db.prepareStatement(step.sql())) {
          for (int p = 0; p < step.parameters().length; p++) {
            prepared.setString(p + 1, step.parameters()[p]);
          }
          prepared.execute();
        }
      }
      db.commit();
    } finally {
      db.setAutoCommit(true);
    }
  }

  private static long scalar(Connection db, String sql) throws SQLException {
    try (Statement statement = db.createStatement();
        ResultSet rs = statement.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static String text(Connection db, String sql, String parameter) throws SQLException {
    try (PreparedStatement select = db.prepareStatement(sql)) {
      select.setString(1, parameter);
      try (ResultSet rs = select.executeQuery()) {
        if (!rs.next()) {
          throw new IllegalStateException("no template row: " + sql + " with " + parameter);
        }
        return rs.getString(1);
      }
    }
  }

  /** Waits for the gateway to record the template's reply (its inbox row is copied). */
  private static void awaitRow(Connection db, String sql, String parameter) throws Exception {
    for (int i = 0; i < 300; i++) {
      try (PreparedStatement select = db.prepareStatement(sql)) {
        select.setString(1, parameter);
        try (ResultSet rs = select.executeQuery()) {
          rs.next();
          if (rs.getLong(1) > 0) {
            return;
          }
        }
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("no row for " + parameter);
  }

  private CreationSeed() {}
}
