# syntax=docker/dockerfile:1
#
# One image recipe for all four services. The build stage compiles the whole reactor once;
# the runtime stage picks one module with the SERVICE build argument:
#
#   docker build --build-arg SERVICE=payments-service -t payagg/payments-service .
#
# docker-compose.yml builds it once per service. The build stage does not depend on SERVICE,
# so BuildKit runs Maven once and shares the result between the four images.
#
# Needs BuildKit (the cache mount below). Docker Compose v2 and `docker build` on Docker 23+
# use it by default; with the old docker-compose 1.29 set DOCKER_BUILDKIT=1 and
# COMPOSE_DOCKER_CLI_BUILD=1.

# ---------------------------------------------------------------------------------------------
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY . .
# The build matches the project's own: Java 17 with --release 17. Tests run in CI, not here,
# and the formatter is skipped because it would rewrite sources inside the image.
# ~/.m2 is a cache mount: dependencies persist between builds without landing in a layer;
# "locked" because parallel builds of the same stage must not write one local repository at once.
RUN --mount=type=cache,target=/root/.m2,id=payagg-m2,sharing=locked \
    mvn -B -DskipTests -Dspotless.skip package

# ---------------------------------------------------------------------------------------------
FROM eclipse-temurin:25-jre AS runtime

# Which module to package: api-gateway, payments-service, ledger-service or webhook-service.
ARG SERVICE
RUN set -eu; \
    case "${SERVICE:-}" in \
      api-gateway|payments-service|ledger-service|webhook-service) ;; \
      *) echo "build with --build-arg SERVICE=<api-gateway|payments-service|ledger-service|webhook-service>, got '${SERVICE:-}'" >&2; exit 1 ;; \
    esac; \
    # Ubuntu images already own uid 1000 (user "ubuntu"); use a system id clear of it.
    groupadd --system --gid 10001 app; \
    useradd --system --uid 10001 --gid app --home-dir /app --no-create-home \
      --shell /usr/sbin/nologin app

WORKDIR /app
# Dependencies first: they change less often than the service's own jar.
COPY --from=build /src/${SERVICE}/target/lib/ /app/lib/
# The manifest's Class-Path names lib/…, relative to the jar, so the rename is safe.
COPY --from=build /src/${SERVICE}/target/${SERVICE}.jar /app/app.jar
# eclipse-temurin images ship neither curl nor wget (the base image installs wget only to fetch
# the JDK and purges it again), so the probe is a bash script using /dev/tcp.
COPY deploy/healthcheck.sh /usr/local/bin/healthcheck.sh

# SERVICE stays in the environment so the health probe knows which port variable to read.
# MaxRAMPercentage sizes the heap from the container's memory limit; override JAVA_OPTS to tune.
ENV SERVICE=${SERVICE} \
    JAVA_OPTS="-XX:MaxRAMPercentage=70"

USER app:app

HEALTHCHECK --interval=10s --timeout=5s --start-period=90s --retries=3 \
  CMD ["/bin/bash", "/usr/local/bin/healthcheck.sh"]

# sh -c so $JAVA_OPTS is expanded (and split into options); exec so java is PID 1 and receives
# SIGTERM for a graceful shutdown. Arguments given to `docker run IMAGE …` pass through as "$@".
ENTRYPOINT ["/bin/sh", "-c", "exec java $JAVA_OPTS --enable-native-access=ALL-UNNAMED -jar /app/app.jar \"$@\"", "app"]
