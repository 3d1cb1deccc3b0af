package ph.payments.gateway.embed.keys;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.KeyUse;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import io.micronaut.runtime.event.annotation.EventListener;
import io.micronaut.runtime.server.event.ServerStartupEvent;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.gateway.embed.tokens.EmbedTokenVerifier;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.sealing.ReplySealer;
import ph.payments.platform.tx.Transactions;

/**
 * The key ring of embed tokens, kept in the gateway's database ({@code embed_signing_keys}) so that
 * every replica signs with the same active key and verifies with the same keys.
 *
 * <ul>
 *   <li>A key is made at start-up when there is none, or when the active one does not open with
 *       this gateway's sealing key (see {@link #onStartup}). Start-up and rotation take one
 *       advisory lock, and a unique index allows one active key, so replicas starting together make
 *       one.
 *   <li>{@link #rotate} retires the active key and makes a new one in one transaction. The retired
 *       key verifies for {@link EmbedTokenVerifier#RETIRED_KEY_WINDOW} more, then leaves the JWKS.
 *   <li>Private keys rest sealed with {@code REPLY_SEALING_KEY} ({@link ReplySealer}, bound to
 *       their kid); they are opened when a replica first signs with them and kept in memory only.
 *   <li>Signing reads the active kid from the database every time, so a rotation on any replica
 *       applies to the next token everywhere. Verification reads keys from a snapshot refreshed
 *       every {@link #REFRESH_AFTER}, and at once (at most every {@link #RELOAD_AT_MOST_EVERY}) for
 *       a kid it does not know, so a key made on another replica verifies right away while tokens
 *       with made-up kids cannot make every request read the database.
 * </ul>
 */
@Singleton
public class SigningKeys implements EmbedTokenVerifier.Keys {

  static final Duration REFRESH_AFTER = Duration.ofSeconds(60);
  static final Duration RELOAD_AT_MOST_EVERY = Duration.ofSeconds(1);

  /** The associated-data field of a sealed private key: {@code reply|<kid>|private_jwk}. */
  static final String SEALED_FIELD = "private_jwk";

  /** {@code pg_advisory_xact_lock} key of start-up and rotation ("embkeys" in ASCII). */
  private static final long LOCK = 0x656d626b657973L;

  private static final Logger log = LoggerFactory.getLogger(SigningKeys.class);

  private static final String COLUMNS = "kid, public_jwk, created_at, retired_at";

  private final Transactions transactions;
  private final ReplySealer sealer;
  private final Clock clock;
  private final Map<String, ECKey> opened = new ConcurrentHashMap<>();
  private volatile Snapshot snapshot = new Snapshot(Map.of(), Long.MIN_VALUE);
  private volatile long lastReloadNanos = Long.MIN_VALUE;

  public SigningKeys(Transactions transactions, ReplySealer sealer, Clock clock) {
    this.transactions = transactions;
    this.sealer = sealer;
    this.clock = clock;
  }

  private record Snapshot(Map<String, SigningKey> byKid, long loadedAtNanos) {}

  /**
   * Before the gateway takes requests: makes the first key when there is none, and replaces an
   * active key whose private part does not open with this gateway's {@code REPLY_SEALING_KEY} (the
   * sealing key was changed, or the database was made by a gateway with another one, such as
   * another checkout's bin/run). That key could sign nothing, so every token request would fail; it
   * is retired instead, and its tokens still verify until they expire (public keys are not sealed).
   */
  @EventListener
  void onStartup(ServerStartupEvent event) {
    transactions.inTransaction(
        connection -> {
          lock(connection);
          Optional<Row> active = findActive(connection);
          if (active.isEmpty()) {
            insertNew(connection, clock.instant());
            log.info("made the first embed-token signing key");
          } else if (!opens(active.get())) {
            Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
            retireActive(connection, now);
            Row made = insertNew(connection, now);
            log.warn(
                "the active embed-token signing key {} does not open with this REPLY_SEALING_KEY:"
                    + " retired it (its tokens verify until they expire) and made {}",
                active.get().key().kid(),
                made.key().kid());
          }
          return null;
        });
    reload();
  }

  private boolean opens(Row row) {
    try {
      ECKey.parse(sealer.open(row.sealedPrivate(), row.key().kid(), SEALED_FIELD));
      return true;
    } catch (ReplySealer.SealedValueException | ParseException e) {
      return false;
    }
  }

  /**
   * The active private key, in the caller's transaction; one is made if there is none.
   *
   * @throws IllegalStateException when the stored key does not open (REPLY_SEALING_KEY changed or
   *     the row was altered); rotating the keys makes a new one
   */
  public ECKey active(Connection connection) throws SQLException {
    Optional<Row> active = findActive(connection);
    if (active.isEmpty()) {
      lock(connection);
      active = findActive(connection);
      if (active.isEmpty()) {
        active = Optional.of(insertNew(connection, clock.instant()));
      }
    }
    Row row = active.get();
    return opened.computeIfAbsent(row.key().kid(), kid -> open(kid, row.sealedPrivate()));
  }

  /** Retires the active key and makes a new one; returns the new one. */
  public SigningKey rotate() {
    SigningKey made =
        transactions.inTransaction(
            connection -> {
              lock(connection);
              Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
              retireActive(connection, now);
              return insertNew(connection, now).key();
            });
    reload();
    log.info("embed-token signing keys rotated: {} is active", made.kid());
    return made;
  }

  /** Every key, oldest first, for operators. */
  public List<SigningKey> all() {
    return transactions.inTransaction(this::load);
  }

  /** The keys that still verify now: what the JWKS lists. */
  public List<SigningKey> published() {
    Instant now = clock.instant();
    return current().byKid().values().stream()
        .filter(key -> key.forVerification().verifiesAt(now))
        .toList();
  }

  @Override
  public Optional<EmbedTokenVerifier.PublicKey> find(String kid) {
    SigningKey key = current().byKid().get(kid);
    if (key == null && IdType.EMBED_KEY.matches(kid) && reloadAllowed()) {
      key = reload().byKid().get(kid);
    }
    return Optional.ofNullable(key).map(SigningKey::forVerification);
  }

  private Snapshot current() {
    Snapshot now = snapshot;
    if (System.nanoTime() - now.loadedAtNanos() > REFRESH_AFTER.toNanos()) {
      return reload();
    }
    return now;
  }

  private synchronized boolean reloadAllowed() {
    long now = System.nanoTime();
    if (now - lastReloadNanos < RELOAD_AT_MOST_EVERY.toNanos()) {
      return false;
    }
    lastReloadNanos = now;
    return true;
  }

  private Snapshot reload() {
    Map<String, SigningKey> byKid = new LinkedHashMap<>();
    for (SigningKey key : all()) {
      byKid.put(key.kid(), key);
    }
    Snapshot loaded = new Snapshot(Map.copyOf(byKid), System.nanoTime());
    snapshot = loaded;
    return loaded;
  }

  private ECKey open(String kid, String sealed) {
    try {
      return ECKey.parse(sealer.open(sealed, kid, SEALED_FIELD));
    } catch (ReplySealer.SealedValueException | ParseException e) {
      log.error(
          "the embed-token signing key {} does not open ({}): rotate the keys with POST"
              + " /admin/v1/embed_keys/rotate",
          kid,
          e.getMessage());
      throw new IllegalStateException("the active embed-token signing key does not open");
    }
  }

  /** A stored key with its sealed private part. */
  private record Row(SigningKey key, String sealedPrivate) {}

  private Row insertNew(Connection connection, Instant now) throws SQLException {
    String kid = IdType.EMBED_KEY.generate();
    ECKey key;
    try {
      key =
          new ECKeyGenerator(Curve.P_256)
              .keyID(kid)
              .keyUse(KeyUse.SIGNATURE)
              .algorithm(JWSAlgorithm.ES256)
              .generate();
    } catch (JOSEException e) {
      throw new IllegalStateException("every JDK generates EC P-256 keys", e);
    }
    String sealed = sealer.seal(key.toJSONString(), kid, SEALED_FIELD);
    Instant created = now.truncatedTo(ChronoUnit.MILLIS);
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO embed_signing_keys (kid, algorithm, public_jwk, private_jwk, created_at)"
                + " VALUES (?, 'ES256', ?::json, ?, ?)")) {
      insert.setString(1, kid);
      insert.setString(2, key.toPublicJWK().toJSONString());
      insert.setString(3, sealed);
      insert.setTimestamp(4, Timestamp.from(created));
      insert.executeUpdate();
    }
    opened.put(kid, key);
    return new Row(new SigningKey(kid, key.toPublicJWK(), created, null), sealed);
  }

  private static void retireActive(Connection connection, Instant now) throws SQLException {
    try (PreparedStatement retire =
        connection.prepareStatement(
            "UPDATE embed_signing_keys SET retired_at = ? WHERE retired_at IS NULL")) {
      retire.setTimestamp(1, Timestamp.from(now));
      retire.executeUpdate();
    }
  }

  private static void lock(Connection connection) throws SQLException {
    try (PreparedStatement lock = connection.prepareStatement("SELECT pg_advisory_xact_lock(?)")) {
      lock.setLong(1, LOCK);
      lock.execute();
    }
  }

  private static Optional<Row> findActive(Connection connection) throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT "
                + COLUMNS
                + ", private_jwk FROM embed_signing_keys WHERE retired_at IS NULL")) {
      try (ResultSet rs = select.executeQuery()) {
        return rs.next()
            ? Optional.of(new Row(read(rs), rs.getString("private_jwk")))
            : Optional.empty();
      }
    }
  }

  private List<SigningKey> load(Connection connection) throws SQLException {
    List<SigningKey> keys = new ArrayList<>();
    try (PreparedStatement select =
            connection.prepareStatement(
                "SELECT " + COLUMNS + " FROM embed_signing_keys ORDER BY created_at, kid");
        ResultSet rs = select.executeQuery()) {
      while (rs.next()) {
        keys.add(read(rs));
      }
    }
    return keys;
  }

  private static SigningKey read(ResultSet rs) throws SQLException {
    Timestamp retired = rs.getTimestamp("retired_at");
    try {
      return new SigningKey(
          rs.getString("kid"),
          ECKey.parse(rs.getString("public_jwk")),
          rs.getTimestamp("created_at").toInstant(),
          retired == null ? null : retired.toInstant());
    } catch (ParseException e) {
      throw new IllegalStateException("a stored public JWK does not parse", e);
    }
  }
}
