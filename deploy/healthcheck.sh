#!/bin/bash
# Container health probe for the four services: GET /health on the service's own port must
# answer 200 (the service answers 200 only while its database and Kafka are reachable).
#
# Plain bash with /dev/tcp because the eclipse-temurin runtime image has neither curl nor
# wget, and starting a JVM every few seconds just to probe would be wasteful.
# The image sets SERVICE; the port variables are the ones the services themselves read.
set -u

case "${SERVICE:-}" in
  api-gateway)      port="${GATEWAY_PORT:-8080}" ;;
  payments-service) port="${PAYMENTS_PORT:-8081}" ;;
  ledger-service)   port="${LEDGER_PORT:-8082}" ;;
  webhook-service)  port="${WEBHOOK_PORT:-8083}" ;;
  *) echo "healthcheck: unknown SERVICE '${SERVICE:-}'" >&2; exit 1 ;;
esac

# Internal services bind INTERNAL_BIND_HOST (0.0.0.0 in containers), so loopback reaches them.
# (The braces keep the 2>/dev/null from redirecting stderr for the rest of the script.)
{ exec 3<>"/dev/tcp/127.0.0.1/${port}"; } 2>/dev/null || { echo "healthcheck: port ${port} closed" >&2; exit 1; }
printf 'GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n' >&3
# Status line: "HTTP/1.1 200 OK"
IFS=' ' read -r -t 5 _version status _reason <&3 || { echo "healthcheck: no answer" >&2; exit 1; }
exec 3<&-
if [ "${status}" = "200" ]; then
  exit 0
fi
echo "healthcheck: /health answered ${status}" >&2
exit 1
