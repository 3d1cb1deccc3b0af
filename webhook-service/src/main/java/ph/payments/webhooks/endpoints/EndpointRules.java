package ph.payments.webhooks.endpoints;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The body rules of endpoint commands. The gateway checks them before it sends a command; the owner
 * checks again only so that nothing malformed is ever stored.
 */
final class EndpointRules {

  static final int MAX_URL_LENGTH = 2048;
  static final int MAX_DESCRIPTION_LENGTH = 500;

  /** An absolute http(s) URI, or null with an issue. */
  static String url(JsonNode value, Map<String, String> issues) {
    if (value == null || !value.isTextual()) {
      issues.put("url", "is required and must be a string");
      return null;
    }
    String url = value.textValue();
    try {
      URI uri = new URI(url);
      if (url.length() > MAX_URL_LENGTH
          || uri.getHost() == null
          || uri.getScheme() == null
          || !uri.getScheme().matches("(?i)https?")) {
        issues.put("url", "must be an absolute http or https URI of at most 2048 characters");
        return null;
      }
      return url;
    } catch (URISyntaxException e) {
      issues.put("url", "must be a valid URI");
      return null;
    }
  }

  /** Known event types or {@code *}, without repeats; null with an issue. */
  static List<String> events(JsonNode value, Map<String, String> issues) {
    if (value == null || !value.isArray() || value.isEmpty()) {
      issues.put("events", "must be a non-empty array of event types, or [\"*\"]");
      return null;
    }
    Set<String> events = new LinkedHashSet<>();
    for (JsonNode element : value) {
      if (!element.isTextual() || !EventTypes.valid(element.textValue())) {
        issues.put("events", "contains an unknown event type: " + element);
        return null;
      }
      events.add(element.textValue());
    }
    return new ArrayList<>(events);
  }

  /** A string of at most 500 characters, or null (also for an explicit null). */
  static String description(JsonNode value, Map<String, String> issues) {
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isTextual() || value.textValue().length() > MAX_DESCRIPTION_LENGTH) {
      issues.put("description", "must be a string of at most 500 characters");
      return null;
    }
    return value.textValue();
  }

  private EndpointRules() {}
}
