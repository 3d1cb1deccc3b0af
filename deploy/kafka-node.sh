#!/bin/bash
# Starts one combined broker+controller node of docker-compose.yml's Kafka cluster, with SASL
# authentication and ACLs (docs/runbook.md, "Kafka security"). Runs as the entrypoint of the
# apache/kafka image, in place of the image's own, so that the node's configuration is written
# here in full rather than derived from environment variable names, and so that the storage can
# be formatted with SCRAM credentials (KIP-900) before the first start.
#
# Listeners, both SASL_PLAINTEXT (SASL without TLS: the project network is private to the
# compose project and nothing publishes these ports; SCRAM never sends the password itself):
#   BROKER     :9092  clients and inter-broker traffic, SCRAM-SHA-512
#   CONTROLLER :9093  the KRaft quorum, PLAIN (KRaft controllers cannot use SCRAM: the SCRAM
#                     credentials live in the metadata log the controllers serve)
# Principals: `broker` (inter-broker and controller traffic) and `admin` (kafka-init, operators)
# are super users; the four service principals get only the ACLs kafka-init.sh grants.
set -euo pipefail

: "${NODE_ID:?NODE_ID is required}"
: "${CLUSTER_ID:?CLUSTER_ID is required}"
: "${KAFKA_BROKER_PASSWORD:?KAFKA_BROKER_PASSWORD is required}"
: "${KAFKA_ADMIN_PASSWORD:?KAFKA_ADMIN_PASSWORD is required}"
# The passwords go into JAAS lines and the storage tool's arguments: keep them to safe characters
# (generate-env.sh makes hex).
for name in KAFKA_BROKER_PASSWORD KAFKA_ADMIN_PASSWORD; do
  if [[ ! "${!name}" =~ ^[A-Za-z0-9._~-]+$ ]]; then
    echo "kafka-node: ${name} may contain only letters, digits and . _ ~ -" >&2
    exit 1
  fi
done

umask 077
config=/tmp/payagg-server.properties
client=/tmp/payagg-client.properties
scram="org.apache.kafka.common.security.scram.ScramLoginModule required username=\"broker\" password=\"${KAFKA_BROKER_PASSWORD}\";"

cat > "${config}" <<PROPERTIES
process.roles=broker,controller
node.id=${NODE_ID}
controller.quorum.voters=1@kafka-1:9093,2@kafka-2:9093,3@kafka-3:9093
listeners=BROKER://0.0.0.0:9092,CONTROLLER://0.0.0.0:9093
advertised.listeners=BROKER://kafka-${NODE_ID}:9092
listener.security.protocol.map=BROKER:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT
inter.broker.listener.name=BROKER
controller.listener.names=CONTROLLER
sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512
sasl.mechanism.controller.protocol=PLAIN
listener.name.broker.sasl.enabled.mechanisms=SCRAM-SHA-512
listener.name.broker.scram-sha-512.sasl.jaas.config=${scram}
listener.name.controller.sasl.enabled.mechanisms=PLAIN
listener.name.controller.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="broker" password="${KAFKA_BROKER_PASSWORD}" user_broker="${KAFKA_BROKER_PASSWORD}";
# Authorization: no ACL means no access; brokers and the admin may do anything.
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
allow.everyone.if.no.acl.found=false
super.users=User:broker;User:admin
log.dirs=/var/lib/kafka/data
# Replication factor 3 with min ISR 2: writes with acks=all keep working while any one node is
# down, and no acknowledged write lives on a single disk.
offsets.topic.replication.factor=3
transaction.state.log.replication.factor=3
transaction.state.log.min.isr=2
default.replication.factor=3
min.insync.replicas=2
num.partitions=6
# kafka-init creates the topics; a topic that appears by accident (a typo) is a bug.
auto.create.topics.enable=${KAFKA_AUTO_CREATE_TOPICS_ENABLE:-false}
unclean.leader.election.enable=false
# Lets the replicas of a service that start together join their group in one rebalance.
group.initial.rebalance.delay.ms=3000
PROPERTIES

# The node's own client settings, for the health check and for operators inside the container.
cat > "${client}" <<PROPERTIES
security.protocol=SASL_PLAINTEXT
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=${scram}
PROPERTIES

# First start only (--ignore-formatted leaves formatted storage alone): the SCRAM credentials of
# the broker and admin principals go into the bootstrap metadata, so the cluster can authenticate
# its own nodes before anyone could have created a user. The service principals are created by
# kafka-init, which re-applies them on every run (that is how a password is changed).
/opt/kafka/bin/kafka-storage.sh format --ignore-formatted \
  --cluster-id "${CLUSTER_ID}" --config "${config}" \
  --add-scram "SCRAM-SHA-512=[name=broker,password=${KAFKA_BROKER_PASSWORD}]" \
  --add-scram "SCRAM-SHA-512=[name=admin,password=${KAFKA_ADMIN_PASSWORD}]"

exec /opt/kafka/bin/kafka-server-start.sh "${config}"
