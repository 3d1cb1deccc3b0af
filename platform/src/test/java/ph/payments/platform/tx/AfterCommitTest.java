package ph.payments.platform.tx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AfterCommitTest {

  @Test
  void anActionRunsOnceTheOutermostWorkReturnedAndOnlyOnce() {
    List<String> ran = new ArrayList<>();
    Runnable ring = () -> ran.add("ring");
    String result =
        AfterCommit.around(
            () -> {
              assertTrue(AfterCommit.register(ring));
              AfterCommit.around(
                  () -> {
                    AfterCommit.register(ring); // the same action again: runs once
                    AfterCommit.register(() -> ran.add("inner"));
                    return null;
                  });
              assertEquals(List.of(), ran, "nothing runs before the outermost work returns");
              return "done";
            });
    assertEquals("done", result);
    assertEquals(List.of("ring", "inner"), ran);
  }

  @Test
  void workThatThrowsDropsItsActions() {
    List<String> ran = new ArrayList<>();
    assertThrows(
        IllegalStateException.class,
        () ->
            AfterCommit.around(
                () -> {
                  AfterCommit.register(() -> ran.add("ring"));
                  throw new IllegalStateException("rolled back");
                }));
    // The next scope starts empty: the dropped action does not run with its actions either.
    AfterCommit.around(() -> null);
    assertEquals(List.of(), ran);
  }

  @Test
  void anInnerScopeThatThrowsInsideAnOuterOneThatCommitsKeepsTheActions() {
    // The inner call joined the outer transaction (as Micronaut's REQUIRED does) and the outer
    // work caught its failure and committed: what was registered is in the committed transaction.
    List<String> ran = new ArrayList<>();
    AfterCommit.around(
        () -> {
          AfterCommit.register(() -> ran.add("outer"));
          assertThrows(
              IllegalStateException.class,
              () ->
                  AfterCommit.around(
                      () -> {
                        throw new IllegalStateException("inner failed");
                      }));
          return null;
        });
    assertEquals(List.of("outer"), ran);
  }

  @Test
  void outsideAnyTransactionNothingIsRegistered() {
    List<String> ran = new ArrayList<>();
    assertFalse(AfterCommit.register(() -> ran.add("ring")));
    AfterCommit.around(() -> null);
    assertEquals(List.of(), ran);
  }

  @Test
  void aFailingActionDoesNotStopTheOthersNorTheResult() {
    List<String> ran = new ArrayList<>();
    String result =
        AfterCommit.around(
            () -> {
              AfterCommit.register(
                  () -> {
                    throw new IllegalStateException("broken bell");
                  });
              AfterCommit.register(() -> ran.add("second"));
              return "committed";
            });
    assertEquals("committed", result);
    assertEquals(List.of("second"), ran);
  }
}
