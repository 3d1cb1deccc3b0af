package ph.payments.bench;

import java.util.ArrayList;
import java.util.List;

/** SQL the seeders share. */
final class SeedSql {

  /**
   * {@code pg_temp.b32(value, length)}: the low {@code 5 × length} bits of {@code value} in the
   * ids' lowercase Crockford base32, zero-padded, as {@code ph.payments.platform.ids} encodes them
   * ({@code length} ≤ 13). One expression, so PostgreSQL inlines it (a loop or an aggregate is ten
   * times slower, minutes over a million rows). Session-local: seeding leaves nothing in the
   * schema.
   */
  static final String BASE32_FUNCTION = base32Function();

  private static String base32Function() {
    List<String> characters = new ArrayList<>();
    for (int i = 0; i < 13; i++) {
      characters.add(
          "substr('0123456789abcdefghjkmnpqrstvwxyz', ((v >> "
              + 5 * (12 - i)
              + ") & 31)::int + 1, 1)");
    }
    return "CREATE OR REPLACE FUNCTION pg_temp.b32(v bigint, len int) RETURNS text LANGUAGE sql"
        + " IMMUTABLE AS $$ SELECT right("
        + String.join(" || ", characters)
        + ", len) $$";
  }

  private SeedSql() {}
}
