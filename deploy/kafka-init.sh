#!/bin/bash
# One-shot job of docker-compose.yml, run as the `admin` principal once the three Kafka nodes are
# healthy and before any service starts. Idempotent: every step is an upsert, so re-running it
# (docker compose up -d kafka-init, or any `up` after .env changed) applies new passwords and
# the current ACL table. See docs/runbook.md, "Kafka security".
#
#   1. SCRAM-SHA-512 users, one per service: gateway, payments, ledger, webhooks.
#   2. The topics of contracts/Topics.java (the services themselves may not create topics).
#   3. ACLs: each principal writes only the topics it produces, reads only the topics it
#      consumes, with consumer groups named after its service. The command topics are the
#      gateway's alone: a command names its merchant, so whoever may write one may act for any
#      merchant.
set -euo pipefail

for name in KAFKA_ADMIN_PASSWORD KAFKA_GATEWAY_PASSWORD KAFKA_PAYMENTS_PASSWORD \
            KAFKA_LEDGER_PASSWORD KAFKA_WEBHOOKS_PASSWORD; do
  if [[ ! "${!name:-}" =~ ^[A-Za-z0-9._~-]+$ ]]; then
    echo "kafka-init: ${name} must be set, with only letters, digits and . _ ~ -" >&2
    exit 1
  fi
done

bin=/opt/kafka/bin
servers="kafka-1:9092,kafka-2:9092,kafka-3:9092"
partitions="${KAFKA_TOPIC_PARTITIONS:-6}"
replication="${KAFKA_TOPIC_REPLICATION:-3}"
umask 077
admin=/tmp/payagg-admin.properties
cat > "${admin}" <<PROPERTIES
security.protocol=SASL_PLAINTEXT
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="${KAFKA_ADMIN_PASSWORD}";
PROPERTIES
export KAFKA_HEAP_OPTS="-Xmx256m"
run() { "${bin}/$1" --bootstrap-server "${servers}" --command-config "${admin}" "${@:2}"; }

user() {
  run kafka-configs.sh --alter --entity-type users --entity-name "$1" \
    --add-config "SCRAM-SHA-512=[iterations=8192,password=$2]" > /dev/null
  echo "kafka-init: user $1 ready"
}
user gateway  "${KAFKA_GATEWAY_PASSWORD}"
user payments "${KAFKA_PAYMENTS_PASSWORD}"
user ledger   "${KAFKA_LEDGER_PASSWORD}"
user webhooks "${KAFKA_WEBHOOKS_PASSWORD}"

for topic in payments.commands webhooks.commands gateway.command-replies payments.events; do
  run kafka-topics.sh --create --if-not-exists --topic "${topic}" \
    --partitions "${partitions}" --replication-factor "${replication}"
done

# allow PRINCIPAL OPERATION RESOURCE-ARGS...
allow() { run kafka-acls.sh --add --allow-principal "User:$1" --operation "$2" "${@:3}" > /dev/null; }
# The services' health check (micronaut-kafka) reads the brokers' replication settings.
for principal in gateway payments ledger webhooks; do
  allow "${principal}" DescribeConfigs --cluster
done
# api-gateway: writes the commands, reads the replies.
allow gateway  Write --topic payments.commands --topic webhooks.commands
allow gateway  Read  --topic gateway.command-replies
allow gateway  Read  --group api-gateway --resource-pattern-type prefixed
# payments-service: reads its commands, writes the event log and its replies.
allow payments Read  --topic payments.commands
allow payments Write --topic payments.events --topic gateway.command-replies
allow payments Read  --group payments-service --resource-pattern-type prefixed
# ledger-service: reads the event log, writes nothing.
allow ledger   Read  --topic payments.events
allow ledger   Read  --group ledger-service --resource-pattern-type prefixed
# webhook-service: reads its commands and the event log, writes its replies.
allow webhooks Read  --topic webhooks.commands --topic payments.events
allow webhooks Write --topic gateway.command-replies
allow webhooks Read  --group webhook-service --resource-pattern-type prefixed
echo "kafka-init: topics and ACLs ready"
