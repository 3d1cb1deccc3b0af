package ph.payments.gateway.idempotency;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * What makes two requests "the same request" for an idempotency key: SHA-256 over the method, the
 * path and the canonical JSON of the body. Canonical JSON has no insignificant whitespace, object
 * keys in code-point order and numbers by value ({@code 100}, {@code 100.0} and {@code 1E+2} are
 * all {@code 100}), so formatting and key order never change a fingerprint, while any difference of
 * method, path or content does.
 */
public final class RequestFingerprint {

  private static final JsonStringEncoder STRINGS = JsonStringEncoder.getInstance();

  /**
   * @return 64 lowercase hex characters
   */
  public static String of(String method, String path, JsonNode body) {
    String text = method + '\n' + path + '\n' + canonicalJson(body);
    try {
      MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(sha256.digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  /** {@code node} as canonical JSON text; a missing body is {@code null}. */
  static String canonicalJson(JsonNode node) {
    StringBuilder out = new StringBuilder();
    write(node, out);
    return out.toString();
  }

  private static void write(JsonNode node, StringBuilder out) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      out.append("null");
    } else if (node.isObject()) {
      List<String> names = new ArrayList<>();
      node.fieldNames().forEachRemaining(names::add);
      names.sort(null);
      out.append('{');
      for (int i = 0; i < names.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        string(names.get(i), out);
        out.append(':');
        write(node.get(names.get(i)), out);
      }
      out.append('}');
    } else if (node.isArray()) {
      out.append('[');
      for (int i = 0; i < node.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        write(node.get(i), out);
      }
      out.append(']');
    } else if (node.isNumber()) {
      BigDecimal value = node.decimalValue();
      out.append(value.signum() == 0 ? "0" : value.stripTrailingZeros().toPlainString());
    } else if (node.isTextual()) {
      string(node.textValue(), out);
    } else if (node.isBoolean()) {
      out.append(node.booleanValue());
    } else {
      // Binary or POJO nodes never come out of a parsed request; fail loudly rather than guess.
      throw new IllegalArgumentException("not a JSON value: " + node.getNodeType());
    }
  }

  private static void string(String value, StringBuilder out) {
    out.append('"').append(STRINGS.quoteAsString(value)).append('"');
  }

  private RequestFingerprint() {}
}
