package ph.payments.platform.replicas;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ReplicasTest {

  private static final String A = "http://127.0.0.1:8081";
  private static final String B = "http://127.0.0.1:8181";
  private static final String C = "http://127.0.0.1:8281";

  private final AtomicLong nanos = new AtomicLong(1_000);
  private final List<String> tried = new ArrayList<>();

  private Replicas replicas(String... urls) {
    return new Replicas("ledger-service", List.of(urls), Duration.ofSeconds(5), nanos::get);
  }

  @Test
  void aListOfBaseUrlsIsReadWithoutBlanksAndTrailingSlashes() {
    assertEquals(
        List.of(A, B, "https://ledger.internal"),
        Replicas.baseUrls(
            "X_URL", " http://127.0.0.1:8081/, http://127.0.0.1:8181 ,https://ledger.internal//"));
    assertEquals(List.of(A), Replicas.baseUrls("X_URL", A));
  }

  @Test
  void anythingButDistinctBaseUrlsIsRefusedWithTheSettingsName() {
    for (String wrong :
        new String[] {
          "",
          " ",
          A + ",",
          A + ",," + B,
          "127.0.0.1:8081",
          "ftp://host",
          "http://",
          A + "," + A + "/"
        }) {
      IllegalArgumentException refused =
          assertThrows(IllegalArgumentException.class, () -> Replicas.baseUrls("X_URL", wrong));
      assertTrue(refused.getMessage().startsWith("X_URL "), refused.getMessage());
    }
  }

  @Test
  void eachCallStartsOneReplicaFurther() {
    Replicas replicas = replicas(A, B, C);
    assertEquals(List.of(A, B, C), replicas.order());
    assertEquals(List.of(B, C, A), replicas.order());
    assertEquals(List.of(C, A, B), replicas.order());
    assertEquals(List.of(A, B, C), replicas.order());
  }

  @Test
  void aReplicaNotReachedIsFollowedByTheNextAndTriedLastDuringItsCoolOff() throws Exception {
    Replicas replicas = replicas(A, B, C);

    assertEquals("answer of " + B, replicas.call(this::deadA, e -> e instanceof ConnectException));
    assertEquals(List.of(A, B), tried);

    // Calls that would have started at A start elsewhere and reach A last.
    assertEquals(List.of(B, C, A), replicas.order());
    assertEquals(List.of(C, B, A), replicas.order());
    assertEquals(List.of(B, C, A), replicas.order());

    nanos.addAndGet(Duration.ofSeconds(5).toNanos());
    assertEquals(List.of(B, C, A), replicas.order());
    assertEquals(List.of(C, A, B), replicas.order());
    assertEquals(List.of(A, B, C), replicas.order(), "after the cool-off A takes its turn again");
  }

  @Test
  void aReplicaThatAnswersAgainIsNoLongerPassedOver() throws Exception {
    Replicas replicas = replicas(A, B);
    assertThrows(
        ConnectException.class,
        () ->
            replicas.call(
                url -> {
                  throw new ConnectException("refused by " + url);
                },
                e -> e instanceof ConnectException));
    assertEquals("answer of " + B, replicas.call(url -> "answer of " + url, e -> false));
    assertEquals(List.of(B, A), replicas.order(), "B answered; A is still passed over");
  }

  @Test
  void aFailureThatMayHaveBeenAppliedEndsTheCallAtOnce() {
    Replicas replicas = replicas(A, B);
    IOException reset = new IOException("Connection reset");
    IOException thrown =
        assertThrows(
            IOException.class,
            () ->
                replicas.call(
                    url -> {
                      tried.add(url);
                      throw reset;
                    },
                    e -> Replicas.causedBy(e, ConnectException.class)));
    assertSame(reset, thrown);
    assertEquals(List.of(A), tried, "B was not asked: A may have applied it");
    assertEquals(List.of(B, A), replicas.order());
    assertEquals(List.of(A, B), replicas.order(), "A is not passed over: it was reached");
  }

  @Test
  void whenNoReplicaIsReachedEachIsTriedOnceAndTheLastFailureIsThrown() {
    Replicas replicas = replicas(A, B, C);
    ConnectException thrown =
        assertThrows(
            ConnectException.class,
            () ->
                replicas.call(
                    url -> {
                      tried.add(url);
                      throw new ConnectException("refused by " + url);
                    },
                    e -> e instanceof ConnectException));
    assertEquals("refused by " + C, thrown.getMessage());
    assertEquals(List.of(A, B, C), tried);
    // All passed over: still all tried, in their turn.
    assertEquals(Set.of(A, B, C), Set.copyOf(replicas.order()));
  }

  @Test
  void anUncheckedFailureIsNotTakenForANotReachedReplicaUnlessSaidSo() {
    Replicas replicas = replicas(A, B);
    IllegalStateException bug = new IllegalStateException("a bug");
    assertSame(
        bug,
        assertThrows(
            IllegalStateException.class,
            () ->
                replicas.call(
                    url -> {
                      throw bug;
                    },
                    e -> e instanceof IOException)));
  }

  @Test
  void causedByLooksThroughTheChain() {
    Exception wrapped = new RuntimeException("Connect Error", new ConnectException("refused"));
    assertTrue(Replicas.causedBy(wrapped, ConnectException.class));
    assertTrue(Replicas.causedBy(wrapped, IOException.class));
    assertFalse(Replicas.causedBy(new RuntimeException("closed"), ConnectException.class));
  }

  private String deadA(String url) throws ConnectException {
    tried.add(url);
    if (url.equals(A)) {
      throw new ConnectException("Connection refused");
    }
    return "answer of " + url;
  }
}
