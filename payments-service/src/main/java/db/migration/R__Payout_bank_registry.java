package db.migration;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.zip.CRC32;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/**
 * Loads the payout bank-code registry from {@code db/data/payout_banks.csv} into {@code
 * payout_banks}. Repeatable: its checksum is the file's, so Flyway runs it again whenever the file
 * changes. Every row of the file is upserted; a code that is in the table but no longer in the file
 * is kept with status 0 (never deleted: old payouts still name it). A malformed file fails the
 * migration, and with it the service's start, rather than loading half a registry.
 */
public class R__Payout_bank_registry extends BaseJavaMigration {

  static final String FILE = "db/data/payout_banks.csv";

  private static final Pattern CODE = Pattern.compile("^[A-Z0-9]{11}$");
  private static final Pattern BRSTN = Pattern.compile("^[0-9]{9}$");
  private static final List<String> HEADER = List.of("code", "name", "kind", "brstn", "status");

  /** One row of the file. */
  record Bank(String code, String name, String kind, String brstn, int status) {}

  @Override
  public Integer getChecksum() {
    CRC32 crc = new CRC32();
    crc.update(read());
    return (int) crc.getValue();
  }

  @Override
  public void migrate(Context context) throws SQLException {
    List<Bank> banks = parse(new String(read(), StandardCharsets.UTF_8));
    Connection connection = context.getConnection();
    Timestamp now = Timestamp.from(Instant.now());
    try (PreparedStatement upsert =
        connection.prepareStatement(
            "INSERT INTO payout_banks (code, name, kind, brstn, status, updated_at)"
                + " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (code) DO UPDATE SET name = EXCLUDED.name,"
                + " kind = EXCLUDED.kind, brstn = EXCLUDED.brstn, status = EXCLUDED.status,"
                + " updated_at = EXCLUDED.updated_at")) {
      for (Bank bank : banks) {
        upsert.setString(1, bank.code());
        upsert.setString(2, bank.name());
        upsert.setString(3, bank.kind());
        upsert.setString(4, bank.brstn());
        upsert.setShort(5, (short) bank.status());
        upsert.setTimestamp(6, now);
        upsert.addBatch();
      }
      upsert.executeBatch();
    }
    try (PreparedStatement retire =
        connection.prepareStatement(
            "UPDATE payout_banks SET status = 0, updated_at = ? WHERE status <> 0"
                + " AND NOT (code = ANY (?))")) {
      retire.setTimestamp(1, now);
      retire.setArray(
          2, connection.createArrayOf("text", banks.stream().map(Bank::code).toArray()));
      retire.executeUpdate();
    }
  }

  /**
   * The rows of the registry file: lines starting with {@code #} are comments, the first other line
   * is the header, fields may be double-quoted (with {@code ""} for a quote).
   *
   * @throws IllegalArgumentException naming the line of the first problem
   */
  static List<Bank> parse(String text) {
    List<Bank> banks = new ArrayList<>();
    Set<String> codes = new HashSet<>();
    boolean header = true;
    String[] lines = text.split("\r?\n");
    for (int n = 0; n < lines.length; n++) {
      String line = lines[n];
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      List<String> fields = fields(line, n + 1);
      if (header) {
        if (!fields.equals(HEADER)) {
          throw new IllegalArgumentException(
              FILE + " line " + (n + 1) + ": header must be " + HEADER);
        }
        header = false;
        continue;
      }
      if (fields.size() != HEADER.size()) {
        throw new IllegalArgumentException(
            FILE + " line " + (n + 1) + ": " + HEADER.size() + " fields expected");
      }
      String code = fields.get(0);
      String name = fields.get(1).strip();
      String kind = fields.get(2);
      String brstn = fields.get(3).isEmpty() ? null : fields.get(3);
      String status = fields.get(4);
      if (!CODE.matcher(code).matches()) {
        throw new IllegalArgumentException(FILE + " line " + (n + 1) + ": code must be 11 A-Z/0-9");
      }
      if (!codes.add(code)) {
        throw new IllegalArgumentException(FILE + " line " + (n + 1) + ": duplicate code " + code);
      }
      if (name.isEmpty()) {
        throw new IllegalArgumentException(FILE + " line " + (n + 1) + ": name is empty");
      }
      if (!kind.equals("bank") && !kind.equals("emi")) {
        throw new IllegalArgumentException(
            FILE + " line " + (n + 1) + ": kind must be bank or emi");
      }
      if (brstn != null && !BRSTN.matcher(brstn).matches()) {
        throw new IllegalArgumentException(FILE + " line " + (n + 1) + ": brstn must be 9 digits");
      }
      if (!status.equals("0") && !status.equals("1")) {
        throw new IllegalArgumentException(FILE + " line " + (n + 1) + ": status must be 0 or 1");
      }
      banks.add(new Bank(code, name, kind, brstn, Integer.parseInt(status)));
    }
    if (header) {
      throw new IllegalArgumentException(FILE + ": no header line");
    }
    return banks;
  }

  private static List<String> fields(String line, int lineNumber) {
    List<String> fields = new ArrayList<>();
    StringBuilder field = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quoted) {
        if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
          field.append('"');
          i++;
        } else if (c == '"') {
          quoted = false;
        } else {
          field.append(c);
        }
      } else if (c == '"' && field.length() == 0) {
        quoted = true;
      } else if (c == ',') {
        fields.add(field.toString());
        field.setLength(0);
      } else {
        field.append(c);
      }
    }
    if (quoted) {
      throw new IllegalArgumentException(FILE + " line " + lineNumber + ": unterminated quote");
    }
    fields.add(field.toString());
    return fields;
  }

  private static byte[] read() {
    try (InputStream in =
        R__Payout_bank_registry.class.getClassLoader().getResourceAsStream(FILE)) {
      if (in == null) {
        throw new IllegalStateException(FILE + " is not on the classpath");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
