package ph.payments.platform.inbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;

/**
 * How long the inbox keeps the ids of applied messages, and the purge that forgets older ones.
 *
 * <p>An id may be forgotten only when its message can never be delivered again. A consumer re-reads
 * a message only while Kafka still holds it: at most the topic's {@code retention.ms} after it was
 * written, plus up to one {@code segment.ms} (Kafka deletes whole segments, and the segment being
 * written is not deleted before it rolls). The outbox relay may publish a row twice (it crashed
 * between the broker's acknowledgement and marking the row), but only while the row is pending,
 * which is seconds, or as long as the relay cannot write to its database. So the inbox keeps ids
 * for the topic's retention plus one segment plus a margin for such a late second publication:
 * {@link #minimum} checks a configured retention against that, and the services refuse to start
 * below it.
 */
public final class InboxRetention {

  /** Margin beyond the topic's retention and segment for a late republication by a relay. */
  public static final Duration MARGIN = Duration.ofDays(7);

  private static final String PURGE =
      "DELETE FROM inbox WHERE ctid IN"
          + " (SELECT ctid FROM inbox WHERE processed_at < ? LIMIT ?)";

  /** The shortest inbox retention that is safe for topics with this retention and segment time. */
  public static Duration minimum(Duration topicRetention, Duration topicSegment) {
    return topicRetention.plus(topicSegment).plus(MARGIN);
  }

  /**
   * @throws IllegalStateException when {@code retention} is shorter than {@link #minimum}
   */
  public static void check(Duration retention, Duration topicRetention, Duration topicSegment) {
    Duration minimum = minimum(topicRetention, topicSegment);
    if (retention.compareTo(minimum) < 0) {
      throw new IllegalStateException(
          "INBOX_RETENTION "
              + retention
              + " is shorter than the topics' retention ("
              + topicRetention
              + ") plus a segment ("
              + topicSegment
              + ") plus "
              + MARGIN
              + ": a forgotten message id could be delivered again and applied twice");
    }
  }

  /**
   * Deletes up to {@code limit} inbox rows of messages applied before {@code cutoff}.
   *
   * @return how many were deleted
   */
  public static int purge(Connection connection, Instant cutoff, int limit) throws SQLException {
    try (PreparedStatement delete = connection.prepareStatement(PURGE)) {
      delete.setTimestamp(1, Timestamp.from(cutoff));
      delete.setInt(2, limit);
      return delete.executeUpdate();
    }
  }

  private InboxRetention() {}
}
