package ph.payments.payments.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.function.Function;
import ph.payments.platform.json.Json;

/**
 * The one shape of every list the internal API answers (SPEC's list envelope {@code {object:
 * "list", data, has_more}}), and its paging: read one row more than the page holds, and that row
 * only says whether there is more. New resources use this instead of another copy (STYLE, "known
 * debt"); the lists of payments, refunds, payouts, customers and products can move onto it.
 */
public final class ListPages {

  public static final int DEFAULT_LIMIT = 25;
  public static final int MAX_LIMIT = 100;

  /** The page size for {@code limit} (the gateway checked it; clamped here all the same). */
  public static int pageSize(Integer limit) {
    return limit == null ? DEFAULT_LIMIT : Math.max(1, Math.min(MAX_LIMIT, limit));
  }

  /** How many rows to read for a page of {@code pageSize}. */
  public static int rowsToRead(int pageSize) {
    return pageSize + 1;
  }

  /**
   * @param rows what was read with {@link #rowsToRead}
   */
  public static <T> ObjectNode envelope(
      List<T> rows, int pageSize, Function<? super T, ? extends JsonNode> json) {
    ObjectNode list = Json.mapper().createObjectNode();
    list.put("object", "list");
    ArrayNode data = list.putArray("data");
    rows.stream().limit(pageSize).forEach(row -> data.add(json.apply(row)));
    list.put("has_more", rows.size() > pageSize);
    return list;
  }

  private ListPages() {}
}
