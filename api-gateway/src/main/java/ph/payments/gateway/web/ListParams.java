package ph.payments.gateway.web;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;
import ph.payments.platform.errors.ApiException;

/**
 * {@code limit} (1–100, default 25) and {@code starting_after} (the last id of the previous page),
 * checked the same way for every list (SPEC part 4).
 */
public record ListParams(int limit, @Nullable String startingAfter) {

  public static final int DEFAULT_LIMIT = 25;
  public static final int MAX_LIMIT = 100;

  /** The cursor of most lists: an object id such as {@code pay_…}. */
  public static final Pattern OBJECT_ID = Pattern.compile("[a-z]+_[0-9a-z]+");

  /**
   * @throws ApiException 400 {@code invalid_request} naming the bad parameter
   */
  public static ListParams from(HttpRequest<?> request) {
    return from(request, OBJECT_ID);
  }

  /**
   * As {@link #from(HttpRequest)} for a list whose objects are named otherwise (the payout bank
   * registry's codes).
   *
   * @param cursor what {@code starting_after} must match
   */
  public static ListParams from(HttpRequest<?> request, Pattern cursor) {
    Map<String, String> issues = new LinkedHashMap<>();
    int limit = DEFAULT_LIMIT;
    String rawLimit = request.getParameters().get("limit");
    if (rawLimit != null) {
      try {
        limit = Integer.parseInt(rawLimit);
        if (limit < 1 || limit > MAX_LIMIT) {
          issues.put("limit", "must be an integer between 1 and " + MAX_LIMIT);
        }
      } catch (NumberFormatException e) {
        issues.put("limit", "must be an integer between 1 and " + MAX_LIMIT);
      }
    }
    String startingAfter = request.getParameters().get("starting_after");
    if (startingAfter != null
        && (startingAfter.isEmpty()
            || startingAfter.length() > 255
            || !cursor.matcher(startingAfter).matches())) {
      issues.put("starting_after", "must be the id of the last object of the previous page");
    }
    if (!issues.isEmpty()) {
      throw ApiException.invalid(issues);
    }
    return new ListParams(limit, startingAfter);
  }
}
