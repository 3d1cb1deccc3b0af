package ph.payments.gateway.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;

/**
 * The rules for a resource's free {@code metadata} (docs/payments.md): at most 50 keys of 1–40
 * characters; values are strings of at most 500 characters, numbers, booleans or null.
 */
public final class Metadata {

  public static final int KEYS = 50;
  public static final int KEY_LENGTH = 40;
  public static final int VALUE_LENGTH = 500;

  /** Checks {@code metadata} when present, recording one issue on it. */
  public static void check(Fields body) {
    ObjectNode metadata = body.optionalObject("metadata");
    if (metadata == null) {
      return;
    }
    if (metadata.size() > KEYS) {
      body.issue("metadata", "must have at most " + KEYS + " keys");
      return;
    }
    Iterator<Map.Entry<String, JsonNode>> fields = metadata.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> field = fields.next();
      JsonNode value = field.getValue();
      if (field.getKey().isEmpty() || field.getKey().length() > KEY_LENGTH) {
        body.issue("metadata", "keys must have 1 to " + KEY_LENGTH + " characters");
        return;
      }
      if (value.isContainerNode()
          || (value.isTextual() && value.textValue().length() > VALUE_LENGTH)) {
        body.issue(
            "metadata",
            "values must be strings of at most "
                + VALUE_LENGTH
                + " characters, numbers, booleans or null");
        return;
      }
    }
  }

  private Metadata() {}
}
