package ph.payments.platform.json;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The one JSON configuration of the system, applied to Micronaut's mapper too:
 *
 * <ul>
 *   <li>snake_case property names, as every field in SPEC;
 *   <li>decimals are read as {@code BigDecimal} and written in plain notation, also inside {@code
 *       JsonNode} trees (metadata, stored events), so {@code 100.50} stays {@code 100.50} and never
 *       passes through {@code double};
 *   <li>nulls are written: the spec's nullable fields are present and null;
 *   <li>unknown properties are ignored between services (a newer producer may add fields); the HTTP
 *       edge rejects them explicitly where the spec's bodies are strict;
 *   <li>a duplicated key is an error, never "the last one wins": {@code
 *       {"amount":100,"amount":200}} would otherwise be 200 to us and 100 to a proxy or log that
 *       reads the first one (issue 19). Our own writers never repeat a key.
 * </ul>
 */
public final class Json {

  private static final ObjectMapper MAPPER = configure(new ObjectMapper());

  /** A shared, fully configured mapper for code outside a Micronaut context. */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /** Applies the settings above to {@code mapper} and returns it. */
  public static ObjectMapper configure(ObjectMapper mapper) {
    mapper.registerModule(new JavaTimeModule());
    mapper.setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);
    mapper.setNodeFactory(JsonNodeFactory.withExactBigDecimals(true));
    mapper.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    mapper.enable(com.fasterxml.jackson.core.JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN);
    mapper.disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    mapper.disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
    mapper.disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);
    mapper.configure(MapperFeature.ALLOW_COERCION_OF_SCALARS, false);
    mapper.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    mapper.setSerializationInclusion(JsonInclude.Include.ALWAYS);
    return mapper;
  }

  public static byte[] toBytes(Object value) {
    try {
      return MAPPER.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("cannot serialise " + value.getClass().getName(), e);
    }
  }

  public static String toText(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("cannot serialise " + value.getClass().getName(), e);
    }
  }

  public static <T> T fromBytes(byte[] json, Class<T> type) {
    try {
      return MAPPER.readValue(json, type);
    } catch (IOException e) {
      throw new UncheckedIOException("malformed " + type.getSimpleName() + " JSON", e);
    }
  }

  public static JsonNode tree(String json) {
    try {
      return MAPPER.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException("malformed JSON", e);
    }
  }

  public static JsonNode tree(byte[] json) {
    try {
      return MAPPER.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException("malformed JSON", e);
    }
  }

  private Json() {}
}
