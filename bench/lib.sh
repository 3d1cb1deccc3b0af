# Shared by the bench/run-* commands (source it; it is not a command):
#   bench_start NAME [HTTP_BASE_PORT KAFKA_BASE_PORT]   start a system with bin/run, wait for READY
#   bench_stop                                          stop it (also done on exit)
#   bench_java CLASS ARGS...                            run a load generator of the bench module
#   bench_machine / bench_load                          describe the machine and its load now
#   bench_write_section NAME FILE                       put FILE between <!-- bench:NAME --> and
#                                                       <!-- /bench:NAME --> in docs/benchmarks.md
#
# A system gets ports HTTP_BASE..+3 (gateway, payments, ledger, webhooks) and KAFKA_BASE..+1
# (default 28180 and 29192, or BENCH_HTTP_BASE_PORT and BENCH_KAFKA_BASE_PORT), databases
# bench_NAME_* (dropped before the run unless BENCH_REUSE_DATABASES=1, and on exit unless
# BENCH_KEEP_DATABASES=1; keeping them for a look afterwards does not make the next run start on
# them, which once made three runs in a row slower and slower: docs/benchmarks.md, thirty-seventh
# round) and run folder bench/target/run-NAME. DATABASE_POOL_SIZE defaults to 10 per service:
# four services of a benchmark must fit with everyone else's in the shared server's 100
# connections.
#
# Replicas (docs/scaling.md): BENCH_REPLICAS=N runs N JVMs of each internal service (bin/run's
# PAYMENTS_REPLICAS, LEDGER_REPLICAS, WEBHOOK_REPLICAS, each kept when set; replica ports are the
# service's + 100 per replica). A section measured with replicas says so, and BENCH_DOC names the
# document its section goes to (default docs/benchmarks.md), so a comparison need not replace the
# baseline: BENCH_DOC=docs/scaling.md BENCH_REPLICAS=2 bench/run-payment-creation writes the
# section payment-creation-replicas-2 of docs/scaling.md.
#
# AOT caches (bin/run's AOT_CACHE, Java 25+; docs/operations.md "Start-up and warm-up"): with
# BENCH_AOT [1] every JVM of the system starts from its cache in bench/target/aot. A build that has
# none yet trains them once: the first system started records them while BENCH_AOT_TRAINING
# [20000] payments are created at 64 connections and 250 webhook events/s are delivered for 60 s
# (30 s written to the event log, 30 s through the test helpers), writes them as it stops, and the benchmark starts its
# system again from them, on fresh databases. BENCH_AOT=0: no caches, as before 2026-11-29.
# shellcheck shell=bash

BENCH_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$BENCH_ROOT" || exit 1

BENCH_RUN_PID=""
BENCH_JAVA=""
BENCH_SERVICES=(api-gateway payments-service ledger-service webhook-service)

bench_log() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

bench_fail() {
  bench_log "ERROR: $*"
  exit 1
}

# Builds when a service jar, the Kafka classpath or the bench classpath is missing, or when a file
# of a module the benchmarks run (tests aside) is newer than the oldest of the jars: a checkout whose code moved since its last
# build would otherwise measure the old jars (and their AOT caches), as three runs of the
# fourteenth round of issue 20 did.
bench_build_if_needed() {
  local missing=0 name jars=() stale
  for name in "${BENCH_SERVICES[@]}"; do
    [[ -f "$name/target/$name.jar" ]] || missing=1
    jars+=("$name/target/$name.jar")
  done
  compgen -G "local-kafka/target/lib/kafka_2.13-*.jar" >/dev/null || missing=1
  [[ -f bench/target/bench.jar ]] && compgen -G "bench/target/lib/*.jar" >/dev/null || missing=1
  jars+=(bench/target/bench.jar)
  if ((!missing)); then
    local oldest
    oldest="$(ls -tr "${jars[@]}" | head -1)"
    stale="$(find pom.xml platform contracts service-parent local-kafka bench "${BENCH_SERVICES[@]}" \
      -path '*/target' -prune -o -path '*/src/test' -prune -o -type f -newer "$oldest" -print \
      -quit 2>/dev/null)"
    if [[ -n "$stale" ]]; then
      bench_log "$stale is newer than $oldest: rebuilding"
      missing=1
    fi
  fi
  if ((missing)); then
    bench_log "building: mvn -B -q -DskipTests package"
    mvn -B -q -DskipTests package || bench_fail "the build failed"
    # An unchanged jar is not written again: mark the build done for the check above.
    touch "${jars[@]}"
  fi
}

bench_psql() {
  psql -w -X -q -v ON_ERROR_STOP=1 -h "${PGHOST:-127.0.0.1}" -p "${PGPORT:-5432}" \
    -U "${PGUSER:-postgres}" "$@"
}

bench_drop_databases() {
  local suffix
  for suffix in gateway payments ledger webhooks; do
    # A logical outbox (OUTBOX_MODE=logical) leaves a replication slot, which would keep the
    # server's WAL and makes DROP DATABASE fail: end its reader and drop it first.
    bench_psql -d postgres -c "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots
      WHERE database = '${DB_PREFIX}_${suffix}' AND active" >/dev/null 2>&1 || true
    sleep 0.2
    bench_psql -d postgres -c "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots
      WHERE database = '${DB_PREFIX}_${suffix}'" >/dev/null 2>&1 || true
    bench_psql -d postgres -c "DROP DATABASE IF EXISTS \"${DB_PREFIX}_${suffix}\" WITH (FORCE)" \
      >/dev/null 2>&1 || bench_log "could not drop ${DB_PREFIX}_${suffix}"
  done
}

# JDBC URL of one of the system's databases: bench_jdbc payments
bench_jdbc() {
  printf 'jdbc:postgresql://%s:%s/%s_%s?user=%s' "${PGHOST:-127.0.0.1}" "${PGPORT:-5432}" \
    "$DB_PREFIX" "$1" "${PGUSER:-postgres}"
}

# One bin/run; true once it printed READY, false (and bin/run gone) otherwise.
bench_launch() {
  BENCH_START_NANOS="$(date +%s%N)"
  bin/run --no-build >"$RUN_DIR/run.out" 2>&1 &
  BENCH_RUN_PID=$!
  local waited=0
  until grep -q '^READY' "$RUN_DIR/run.out" 2>/dev/null; do
    if ! kill -0 "$BENCH_RUN_PID" 2>/dev/null || ((waited++ > 4000)); then
      tail -5 "$RUN_DIR/run.out" >&2
      bench_stop
      return 1
    fi
    sleep 0.1
  done
  BENCH_READY_SECONDS="$((($(date +%s%N) - BENCH_START_NANOS) / 1000000))"
  BENCH_READY_SECONDS="$((BENCH_READY_SECONDS / 1000)).$(printf '%03d' $((BENCH_READY_SECONDS % 1000)))"
}

bench_start() {
  local name="$1" http_base="${2:-${BENCH_HTTP_BASE_PORT:-28180}}"
  local kafka_base="${3:-${BENCH_KAFKA_BASE_PORT:-29192}}"
  bench_build_if_needed
  export RUN_DIR="$BENCH_ROOT/bench/target/run-$name"
  export DB_PREFIX="bench_${name//-/_}"
  export GATEWAY_PORT="$http_base" PAYMENTS_PORT="$((http_base + 1))" \
    LEDGER_PORT="$((http_base + 2))" WEBHOOK_PORT="$((http_base + 3))" \
    KAFKA_PORT="$kafka_base" KAFKA_CONTROLLER_PORT="$((kafka_base + 1))"
  export PAYMENTS_ADMIN_TOKEN="adm_bench_$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"
  export INTERNAL_TOKEN="${INTERNAL_TOKEN:-$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')}"
  export DATABASE_POOL_SIZE="${DATABASE_POOL_SIZE:-10}"
  local replicas="${BENCH_REPLICAS:-1}"
  export PAYMENTS_REPLICAS="${PAYMENTS_REPLICAS:-$replicas}" LEDGER_REPLICAS="${LEDGER_REPLICAS:-$replicas}" \
    WEBHOOK_REPLICAS="${WEBHOOK_REPLICAS:-$replicas}"
  # A shared machine can be slow to start four JVMs; bin/run's default is 90 s.
  export HEALTH_TIMEOUT_SECONDS="${HEALTH_TIMEOUT_SECONDS:-300}"
  export BENCH_GATEWAY="http://127.0.0.1:$GATEWAY_PORT"
  if [[ "${BENCH_AOT:-1}" == 1 ]]; then
    export AOT_CACHE="$BENCH_ROOT/bench/target/aot"
  else
    unset AOT_CACHE
  fi
  mkdir -p "$RUN_DIR"
  # The same benchmark run from another checkout has these ports and these databases: while it
  # runs, leave both alone (dropping its databases "WITH (FORCE)" would break it mid-run).
  local port
  for port in "$http_base" "$((http_base + 1))" "$((http_base + 2))" "$((http_base + 3))" \
    "$kafka_base" "$((kafka_base + 1))"; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      bench_fail "port $port is in use: is $name running from another checkout? Its databases ${DB_PREFIX}_* were left alone"
    fi
  done
  if [[ "${BENCH_REUSE_DATABASES:-0}" != 1 ]]; then
    bench_drop_databases
  fi
  trap bench_on_exit EXIT
  trap 'exit 130' INT TERM
  # bin/run gives Kafka 30 s to listen; on a machine loaded by others it sometimes needs more.
  bench_launch_retrying
  BENCH_JAVA="$(bench_java_from "$RUN_DIR/run.out")"
  BENCH_JAVA="${BENCH_JAVA:-java}"
  if grep -q '^AOT cache: .* records one' "$RUN_DIR/run.out"; then
    bench_train_aot
  fi
  bench_log "$name: system READY in ${BENCH_READY_SECONDS}s (gateway $BENCH_GATEWAY, databases ${DB_PREFIX}_*)"
}

bench_launch_retrying() {
  local attempt
  for attempt in 1 2 3; do
    bench_launch && return 0
    ((attempt < 3)) || bench_fail "bin/run did not get to READY in three attempts"
    bench_log "bin/run did not get to READY (attempt $attempt); trying again"
    sleep 5
  done
}

# The system just started records the AOT caches of this build: give them the work of the command
# path and of webhook delivery, stop it (they are written as its JVMs exit) and start it again from
# them, on fresh databases.
bench_train_aot() {
  local creations="${BENCH_AOT_TRAINING:-20000}"
  bench_log "no AOT caches for this build yet: training them with $creations creations at 64 connections, then 60 s of webhooks"
  # A run stopped during the training (Ctrl-C, a kill) still stops its JVMs normally, and they
  # write caches of what they saw so far; later runs would start from those as if trained (a round
  # measured one side of an A/B that way: 0.75 of the other's events/s). bench_on_exit drops them.
  BENCH_AOT_TRAINING_CUT=1
  # The JDK client trains, whatever BENCH_CLIENT the run measures with (wrk's script for the
  # webhooks is set only by bench/run-webhooks).
  BENCH_CLIENT=jdk BENCH_WARMUP=0 bench_java ph.payments.bench.PaymentCreationBench "$BENCH_GATEWAY" \
    "$PAYMENTS_ADMIN_TOKEN" "$creations" 64 >/dev/null
  BENCH_CLIENT=jdk BENCH_WARMUP_SECONDS=10 BENCH_OUTPUT=/dev/null bench_java ph.payments.bench.WebhookBench \
    "$BENCH_GATEWAY" "$PAYMENTS_ADMIN_TOKEN" "$(bench_jdbc payments)" "$(bench_jdbc webhooks)" \
    250 30 125 0 >/dev/null
  BENCH_AOT_TRAINING_CUT=0
  bench_stop
  grep '^AOT cache' "$RUN_DIR/run.out" >&2 || true
  bench_drop_databases # the measured run starts on fresh databases, not on the training's rows
  bench_launch_retrying
  if grep -q '^AOT cache: .* records one' "$RUN_DIR/run.out"; then
    bench_fail "the AOT caches were not written (bin/run's output: $RUN_DIR/run.out)"
  fi
}

# SIGTERM to bin/run, which stops Kafka and the services and waits for them.
bench_stop() {
  if [[ -n "$BENCH_RUN_PID" ]]; then
    kill -TERM "$BENCH_RUN_PID" 2>/dev/null || true
    wait "$BENCH_RUN_PID" 2>/dev/null || true
    BENCH_RUN_PID=""
  fi
}

bench_on_exit() {
  local status=$?
  bench_cpu_sampler_stop
  bench_stop
  if [[ "${BENCH_AOT_TRAINING_CUT:-0}" == 1 ]]; then
    local file
    for file in $(sed -n 's/^AOT cache: .* records one this run (written to \(.*\) as the run stops)$/\1/p' \
      "$RUN_DIR/run.out"); do
      rm -f "$file" "$file".recording*
    done
    bench_log "the AOT training was cut short: its caches were dropped, the next run trains them again"
  fi
  if [[ -n "${DB_PREFIX:-}" && "${BENCH_KEEP_DATABASES:-0}" != 1 ]]; then
    bench_drop_databases
  fi
  exit "$status"
}

# The process ids of the system's JVMs, one "name pid" per line (kafka, api-gateway, ...).
bench_processes() {
  local pid args
  while read -r pid args; do
    case "$args" in
      *kafka.Kafka*) printf 'kafka %s\n' "$pid" ;;
      *-jar*/target/*.jar*)
        args="${args##*-jar }"
        args="${args%% *}"
        args="${args##*/}"
        printf '%s %s\n' "${args%.jar}" "$pid"
        ;;
    esac
  done < <(ps -o pid=,args= --ppid "$BENCH_RUN_PID")
}

# The JIT's share of the system's CPU over a measurement. bench_jit_snapshot FILE takes one sample
# of bench_cpu_sample (each JVM's ticks, and its C1/C2 compiler threads' as "jit:NAME"), and
# bench_jit_report BEFORE AFTER prints "JIT ms of all ms" over the JVMs alive at both. On a small
# machine the services' compiler threads take a large part of the CPU for minutes after a start; a
# figure measured while they do is not the steady state.
bench_jit_snapshot() {
  : >"$1"
  bench_cpu_sample "$1"
}

bench_jit_report() {
  awk -v hz="$(getconf CLK_TCK)" '
    $2 == "machine" || $2 ~ /^postgres:/ { next }
    FNR == NR { before[$2, $3] = $4; next }
    ($2, $3) in before { d = $4 - before[$2, $3]; if ($2 ~ /^jit:/) jit += d; else all += d }
    END { printf "%.0f %.0f\n", jit * 1000 / hz, all * 1000 / hz }' "$1" "$2"
}

# CPU by process over the stages of a load. bench_cpu_sampler_start FILE samples every second,
# until bench_cpu_sampler_stop, the CPU ticks of each JVM of the system, of each PostgreSQL process
# (named by its database: "postgres:ledger", …, "postgres:server" for the server's own processes)
# and of the whole machine, as lines "<epoch ms> <name> <pid> <ticks>". bench_cpu_report SAMPLES
# STAGES prints a Markdown table of the milliseconds of CPU per event each took over each stage of
# STAGES (lines "<start ms> <end ms> <events> <name>", written by the load generator:
# bench/src/.../Stages.java), from the last sample before the stage's start to the first after its
# end, over the processes alive at both (replicas summed by name), and PostgreSQL's share by
# database, and "its JIT", the part of the JVMs' CPU their C1 and C2 compiler threads took; "other"
# is the machine less those processes: the load generator, wrk, the sampler, and
# any process that started or ended within the stage (e.g. the load generator's own connections).
bench_cpu_sampler_start() {
  BENCH_CPU_SAMPLES="$1"
  : >"$BENCH_CPU_SAMPLES"
  rm -f "$BENCH_CPU_SAMPLES.stop"
  # One process for the whole run: a sample that forked date, ps and an awk a process took about a
  # twentieth of the two cores (perf, thirty-eighth round), which the system under load then lacked.
  # It ends between samples, never within one: a sample cut short by a kill (the JVMs' lines
  # written, the machine's not) once made the last stage's figures zeros.
  perl "$BENCH_ROOT/bench/cpu-sampler.pl" "$BENCH_CPU_SAMPLES" "$BENCH_CPU_SAMPLES.stop" \
    "${DB_PREFIX:-bench}_" loop $(bench_processes | tr ' ' ':') &
  BENCH_CPU_SAMPLER_PID=$!
}

# One sample of every process (see bench_cpu_sampler_start), appended to $1.
bench_cpu_sample() {
  perl "$BENCH_ROOT/bench/cpu-sampler.pl" "$1" "" "${DB_PREFIX:-bench}_" once \
    $(bench_processes | tr ' ' ':')
}

# Stops the sampling after a last sample, so that a stage ending just now has one after its end.
bench_cpu_sampler_stop() {
  if [[ -n "${BENCH_CPU_SAMPLER_PID:-}" ]]; then
    : >"$BENCH_CPU_SAMPLES.stop"
    wait "$BENCH_CPU_SAMPLER_PID" 2>/dev/null || true
    rm -f "$BENCH_CPU_SAMPLES.stop"
    BENCH_CPU_SAMPLER_PID=""
    sleep 0.1
    bench_cpu_sample "$BENCH_CPU_SAMPLES"
  fi
}

bench_cpu_report() {
  awk -v hz="$(getconf CLK_TCK)" '
    FNR == NR {
      ns++; s0[ns] = $1; s1[ns] = $2; ev[ns] = $3
      name = $0; sub(/^[^ ]+ [^ ]+ [^ ]+ /, "", name); sn[ns] = name
      next
    }
    # A sample is whole once its last line (machine) is in: times without it are skipped.
    $2 == "machine" { times[++nt] = $1 }
    {
      key = $2 SUBSEP $3
      if (!(key in known)) { known[key] = 1; names[$2] = 1 }
      v[$1, key] = $4
    }
    END {
      split("api-gateway payments-service ledger-service webhook-service kafka", order, " ")
      split("gateway payments ledger webhooks server", dbs, " ")
      header = "| stage | events |"; rule = "|---|---|"
      for (k = 1; k <= 5; k++) if (order[k] in names) { header = header " " order[k] " |"; rule = rule "---|" }
      print header " PostgreSQL | the system | its JIT | other | machine |"; print rule "---|---|---|---|---|"
      for (i = 1; i <= ns; i++) {
        a = ""; b = ""
        for (j = 1; j <= nt; j++) { if (times[j] <= s0[i]) a = times[j]; if (times[j] >= s1[i] && b == "") b = times[j] }
        if (a == "" || b == "" || ev[i] == 0) continue
        if (s0[i] - a > 3000 || b - s1[i] > 3000) {
          printf "| %s | %d | not measured: no sample within 3 s of the stage |\n", sn[i], ev[i]; continue
        }
        split("", d)
        for (key in known) if (((a, key) in v) && ((b, key) in v)) {
          split(key, parts, SUBSEP); d[parts[1]] += v[b, key] - v[a, key]
        }
        per = 1000 / hz / ev[i]; row = "| " sn[i] " | " ev[i] " |"; sys = 0; pg = 0
        for (k = 1; k <= 5; k++) if (order[k] in names) { sys += d[order[k]]; row = row sprintf(" %.2f |", d[order[k]] * per) }
        dbrow[i] = "| " sn[i] " |"
        for (k = 1; k <= 5; k++) if (("postgres:" dbs[k]) in names) {
          pg += d["postgres:" dbs[k]]; dbrow[i] = dbrow[i] sprintf(" %.2f |", d["postgres:" dbs[k]] * per)
        }
        jit = 0; for (name in d) if (name ~ /^jit:/) jit += d[name]
        sys += pg; m = d["machine"]
        printf "%s %.2f | **%.2f** | %.2f | %.2f | %.2f |\n", row, pg * per, sys * per, jit * per, (m - sys) * per, m * per
      }
      header = ""; rule = ""
      for (k = 1; k <= 5; k++) if (("postgres:" dbs[k]) in names) { header = header " " dbs[k] " |"; rule = rule "---|" }
      if (header == "") exit
      print ""; print "| stage: PostgreSQL by database |" header; print "|---|" rule
      for (i = 1; i <= ns; i++) if (i in dbrow) print dbrow[i]
    }' "$2" "$1"
}

bench_java() {
  "$BENCH_JAVA" -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
    -cp "$BENCH_ROOT/bench/target/bench.jar:$BENCH_ROOT/bench/target/lib/*" "$@"
}

bench_machine() {
  local cpu memory pg jdk
  cpu="$(grep -m1 '^model name' /proc/cpuinfo | sed 's/^[^:]*: *//')"
  memory="$(awk '/^MemTotal:/ {printf "%.0f", $2 / 1048576}' /proc/meminfo)"
  # With autovacuum off (our CI machines) nothing analyzes the growing tables (docs/runbook.md).
  pg="$(bench_psql -d postgres -Atc "select split_part(current_setting('server_version'), ' ', 1)
    || ', autovacuum ' || current_setting('autovacuum')" 2>/dev/null)"
  jdk="$("${BENCH_JAVA:-java}" -XshowSettings:properties -version 2>&1 |
    sed -n 's/^ *java\.runtime\.version = //p')"
  printf '%s cores (%s), %s GiB RAM, %s; PostgreSQL %s; JDK %s (%s)' "$(nproc)" "${cpu:-unknown CPU}" \
    "$memory" "$(uname -sr)" "${pg:-?}" "${jdk:-?}" "${BENCH_JAVA:-java}"
}

# Load averages over 1, 5 and 15 minutes.
bench_load() {
  awk '{print $1 " / " $2 " / " $3}' /proc/loadavg
}

# Other JVMs on the machine that are not this benchmark's (other people's builds and systems).
bench_other_jvms() {
  local count=0 pid ppid comm
  while read -r pid ppid comm; do
    [[ "$comm" == java ]] || continue
    [[ "$ppid" == "$BENCH_RUN_PID" ]] && continue
    count=$((count + 1))
  done < <(ps -eo pid=,ppid=,comm=)
  printf '%s' "$count"
}

# "Measured ... on ..." paragraph for a section; call bench_note_before first.
bench_note_before() {
  BENCH_LOAD_BEFORE="$(bench_load)"
  BENCH_OTHERS_BEFORE="$(bench_other_jvms)"
}

# "payments 2, ledger 2, webhooks 2" when the system runs replicas, else nothing.
bench_replicas() {
  if ((${PAYMENTS_REPLICAS:-1} * ${LEDGER_REPLICAS:-1} * ${WEBHOOK_REPLICAS:-1} > 1)); then
    printf 'payments %s, ledger %s, webhooks %s' "${PAYMENTS_REPLICAS:-1}" "${LEDGER_REPLICAS:-1}" \
      "${WEBHOOK_REPLICAS:-1}"
  fi
}

bench_note() {
  printf -- '- Measured %s; everything (Kafka, PostgreSQL, the four services, the load generator)\n' \
    "$(date -u +'%Y-%m-%d %H:%M UTC')"
  printf -- '  on one machine: %s.\n' "$(bench_machine)"
  if [[ -n "$(bench_replicas)" ]]; then
    printf -- '- Replicas of the internal services, each its own JVM: %s (the gateway one).\n' \
      "$(bench_replicas)"
  fi
  if grep -q '^AOT cache: .* starts from' "$RUN_DIR/run.out" 2>/dev/null; then
    printf -- '- Every JVM started from an AOT cache of this build (JDK 25; trained by %s creations at\n' \
      "${BENCH_AOT_TRAINING:-20000}"
    printf -- '  64 connections and 60 s of webhooks at 250 events/s; bench/lib.sh). `BENCH_AOT=0` measures without.\n'
  else
    printf -- '- No AOT caches (`BENCH_AOT=0`, or a JDK older than 25).\n'
  fi
  printf -- '- Load average (1/5/15 min) before: %s; after: %s. Other JVMs running (other\n' \
    "$BENCH_LOAD_BEFORE" "$(bench_load)"
  printf -- "  people's builds and systems on the same machine) before: %s; after: %s.\n" \
    "$BENCH_OTHERS_BEFORE" "$(bench_other_jvms)"
}

# Replaces the section NAME of docs/benchmarks.md (or BENCH_DOC) with the contents of FILE
# (appends it when the section is new), leaving every other section as it is. With replicas the
# section is NAME-replicas-N (N: the payments replicas).
bench_write_section() {
  local name="$1" file="$2" doc="$BENCH_ROOT/${BENCH_DOC:-docs/benchmarks.md}"
  if [[ -n "$(bench_replicas)" ]]; then
    name="$name-replicas-${PAYMENTS_REPLICAS:-1}"
  fi
  local open="<!-- bench:$name -->" close="<!-- /bench:$name -->"
  if [[ ! -f "$doc" ]]; then
    printf '# Benchmarks\n\nOne section per command of [bench/](../bench/README.md).\n' >"$doc"
  fi
  if grep -qxF "$open" "$doc"; then
    awk -v opening="$open" -v closing="$close" -v file="$file" '
      $0 == opening { print; while ((getline line < file) > 0) print line; skipping = 1; next }
      $0 == closing { skipping = 0 }
      !skipping { print }' "$doc" >"$doc.tmp"
    mv "$doc.tmp" "$doc"
  else
    {
      printf '\n%s\n' "$open"
      cat "$file"
      printf '%s\n' "$close"
    } >>"$doc"
  fi
  bench_log "wrote section $name of ${doc#"$BENCH_ROOT"/}"
}

# wrk, the load generator of BENCH_CLIENT=wrk: Debian's package, installed when missing and we are
# root with apt-get (as bin/ensure-browser does for the browser); otherwise say how.
bench_ensure_wrk() {
  command -v wrk >/dev/null && return 0
  if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null; then
    bench_log "installing wrk (Debian's package)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q wrk >/dev/null ||
      { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q wrk >/dev/null; }
  fi
  command -v wrk >/dev/null || bench_fail "BENCH_CLIENT=wrk needs wrk: apt-get install wrk"
}

# wrk's figures from its --latency output on stdin, on one line: the requests it completed, the
# responses other than 2xx or 3xx, the socket errors, the rate, and p50, p90 and p99 in ms.
bench_wrk_figures() {
  awk '
    function ms(v) {
      if (v ~ /us$/) return substr(v, 1, length(v) - 2) / 1000
      if (v ~ /ms$/) return substr(v, 1, length(v) - 2) + 0
      if (v ~ /s$/) return substr(v, 1, length(v) - 1) * 1000
      return v + 0
    }
    $1 == "50%" { p50 = ms($2) }
    $1 == "90%" { p90 = ms($2) }
    $1 == "99%" { p99 = ms($2) }
    / requests in / { requests = $1 }
    /Non-2xx or 3xx responses:/ { non2xx += $NF }
    /Socket errors:/ { gsub(/,/, ""); socket += $4 + $6 + $8 + $10 }
    /^Requests\/sec:/ { rate = $2 }
    END { print requests + 0, non2xx + 0, socket + 0, rate + 0, p50 + 0, p90 + 0, p99 + 0 }'
}

# The JDK that bin/run chose, from its output in $1 (its "Java N: path" line).
bench_java_from() {
  grep -o '^Java [0-9]*: [^ ]*' "$1" | awk '{print $3}'
}
