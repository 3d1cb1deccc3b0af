package ph.payments.payments.web;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.TextNode;
import java.util.List;
import org.junit.jupiter.api.Test;
import ph.payments.platform.json.Json;

class ListPagesTest {

  @Test
  void pageSizesAreClampedAndDefaulted() {
    assertEquals(25, ListPages.pageSize(null));
    assertEquals(1, ListPages.pageSize(0));
    assertEquals(100, ListPages.pageSize(101));
    assertEquals(7, ListPages.pageSize(7));
    assertEquals(8, ListPages.rowsToRead(7));
  }

  @Test
  void theExtraRowOnlySaysThereIsMore() {
    assertEquals(
        "{\"object\":\"list\",\"data\":[\"a\",\"b\"],\"has_more\":true}",
        Json.toText(ListPages.envelope(List.of("a", "b", "c"), 2, TextNode::new)));
    assertEquals(
        "{\"object\":\"list\",\"data\":[\"a\",\"b\"],\"has_more\":false}",
        Json.toText(ListPages.envelope(List.of("a", "b"), 2, TextNode::new)));
  }
}
