#!/bin/bash
# Creates one database and one login role per service on the shared PostgreSQL server.
#
# Run by the postgres image's entrypoint from /docker-entrypoint-initdb.d on the first start of
# an empty data volume only. It is idempotent, so after changing a password in .env an operator
# can re-run it against the live server to create missing roles and databases and to reset the
# passwords:
#   docker compose exec postgres bash /docker-entrypoint-initdb.d/10-payagg-databases.sh
#
# Why a role per service: ARCHITECTURE.md says a service reads and writes only its own database.
# With one role each, owning only its own database, and CONNECT revoked from PUBLIC, PostgreSQL
# enforces that rule: a misconfigured URL or a leaked service credential reaches one database,
# not four. The superuser (POSTGRES_PASSWORD) is used by nothing but this script and operators.
# No "set -u": the postgres entrypoint sources (rather than runs) a script that lost its exec bit,
# and -u would then leak into the entrypoint. The :? checks below cover the variables we need.
set -eo pipefail

: "${GATEWAY_DB_PASSWORD:?GATEWAY_DB_PASSWORD must be set}"
: "${PAYMENTS_DB_PASSWORD:?PAYMENTS_DB_PASSWORD must be set}"
: "${LEDGER_DB_PASSWORD:?LEDGER_DB_PASSWORD must be set}"
: "${WEBHOOK_DB_PASSWORD:?WEBHOOK_DB_PASSWORD must be set}"

create_service_database() {
  local name="$1" password="$2"
  # Values travel as psql variables and are quoted by format(%I / %L), never spliced into SQL.
  psql -v ON_ERROR_STOP=1 --no-psqlrc --username "${POSTGRES_USER:-postgres}" --dbname postgres \
    -v name="${name}" -v password="${password}" <<'SQL'
SELECT format('CREATE ROLE %I LOGIN', :'name')
 WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'name') \gexec
SELECT format('ALTER ROLE %I WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD %L',
              :'name', :'password') \gexec
SELECT format('CREATE DATABASE %I OWNER %I ENCODING %L TEMPLATE template0',
              :'name', :'name', 'UTF8')
 WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'name') \gexec
SELECT format('REVOKE ALL ON DATABASE %I FROM PUBLIC', :'name') \gexec
SELECT format('GRANT ALL ON DATABASE %I TO %I', :'name', :'name') \gexec
SQL
  echo "payagg: database and role ${name} ready"
}

create_service_database payagg_gateway  "${GATEWAY_DB_PASSWORD}"
create_service_database payagg_payments "${PAYMENTS_DB_PASSWORD}"
create_service_database payagg_ledger   "${LEDGER_DB_PASSWORD}"
create_service_database payagg_webhook  "${WEBHOOK_DB_PASSWORD}"
