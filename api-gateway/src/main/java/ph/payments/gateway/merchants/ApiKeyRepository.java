package ph.payments.gateway.merchants;

import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;
import java.util.List;
import java.util.Optional;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface ApiKeyRepository extends CrudRepository<ApiKeyRow, String> {

  /** The key whose keyed hash this is; the unique index makes it one lookup, no scan. */
  Optional<ApiKeyRow> findBySecretHash(byte[] secretHash);

  List<ApiKeyRow> findByMerchantIdOrderByCreatedAt(String merchantId);
}
