package ph.payments.gateway.commands;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import org.apache.kafka.clients.producer.ProducerRecord;
import ph.payments.contracts.Envelope;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.contracts.commands.CommandTypes;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.kafka.KafkaEnvelopes;

/** Replies as an owner's outbox relay publishes them, for tests that play the owner. */
final class ReplyRecords {

  /**
   * A reply to {@code commandId} under a new message id, for {@code partition} of {@code topic}.
   */
  static ProducerRecord<String, byte[]> reply(
      String topic, int partition, String commandId, int status, JsonNode body) {
    ProducerRecord<String, byte[]> record =
        KafkaEnvelopes.toRecord(
            topic,
            new Envelope(
                IdType.MESSAGE.generate(),
                CommandTypes.REPLY,
                commandId,
                Instant.now(),
                Json.toBytes(new CommandReply(commandId, status, body))));
    return new ProducerRecord<>(topic, partition, record.key(), record.value(), record.headers());
  }

  private ReplyRecords() {}
}
