#!/usr/bin/env bash
# Runs Sluice's side-by-side benchmarks and writes bench/results/NAME.md.
#
#   bench/run.sh [limiter|footprint|edge|redis|redis-cluster|sdk|delivery|sim|keys|all] [-- extra harness options]
#
# Installs what it needs from Debian packages when missing (nginx, wrk, redis-tools), builds the
# benchmark jar (sluice-bench) and, for the edge, the sluice command's jar, then runs each benchmark
# under a hard time bound. Every results file starts with the date, the machine (cores, memory,
# load average, JDK), the version of every peer and the command; the numbers follow, with the ratio
# Sluice/peer from rounds interleaved A B A B in the same invocation (medians of >= 5 rounds).
# Environment: BENCH_TIMEOUT (seconds per benchmark, default 600), BENCH_QUICK=1 (tiny durations,
# a smoke test: results go to bench/results/quick/ instead), BENCH_SKIP_BUILD=1 (use the jars
# already built).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
. bin/jdk.sh
sluice_select_jdk >/dev/null || exit 1
JAVA="$JAVA_HOME/bin/java"
what="${1:-all}"
shift || true
[ "${1:-}" = "--" ] && shift
extra=("$@")
timeout_s="${BENCH_TIMEOUT:-600}"
out_dir="$root/bench/results"
[ "${BENCH_QUICK:-0}" = 1 ] && out_dir="$root/bench/results/quick"
mkdir -p "$out_dir"
bench_jar="$root/sluice-bench/target/sluice-bench.jar"
cli_jar="$root/sluice-cli/target/sluice.jar"

need_packages() {
  local missing=()
  command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
  command -v wrk >/dev/null 2>&1 || missing+=(wrk)
  command -v redis-benchmark >/dev/null 2>&1 || missing+=(redis-tools)
  if [ ${#missing[@]} -gt 0 ]; then
    echo "bench: installing ${missing[*]}" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}") >&2
  fi
}

build() {
  if [ "${BENCH_SKIP_BUILD:-0}" = 1 ] && [ -f "$bench_jar" ] && [ -f "$cli_jar" ]; then
    echo "bench: BENCH_SKIP_BUILD=1: using the jars already built" >&2
    return 0
  fi
  echo "bench: building sluice-bench and the sluice command" >&2
  # package, not install: the reactor resolves the modules from each other; ~/.m2 is shared
  ./mvnw -q -B -o -DskipTests -Dmaven.javadoc.skip=true package -pl sluice-cli,sluice-bench -am >&2
}

pom_version() { # PROPERTY: a version pinned in the root pom.xml
  sed -n "s|.*<$1>\(.*\)</$1>.*|\1|p" "$root/pom.xml" | head -n 1
}

header() { # NAME COMMAND
  local mem
  mem=$(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)
  cat <<HDR
# Benchmark: $1

- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')
- machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')), $mem memory, $(uname -sr)
- load average at start: $(cut -d' ' -f1-3 /proc/loadavg)
- JDK: $("$JAVA" -version 2>&1 | head -n 1)
- Sluice: $(git -C "$root" rev-parse --short HEAD) (branch $(git -C "$root" rev-parse --abbrev-ref HEAD))
- peers: Bucket4j $(pom_version bucket4j.version) (bucket4j_jdk17-core, bucket4j_jdk17-lettuce), Resilience4j $(pom_version resilience4j.version), Guava $(pom_version guava.version), JMH $(pom_version jmh.version), Lettuce $(pom_version lettuce.version), Netty $(pom_version netty.version), $(nginx -v 2>&1 | sed 's|nginx version: ||'), $(wrk -v 2>&1 | head -n1 | cut -d' ' -f1-2), Redis server $(redis-cli -h 127.0.0.1 INFO server 2>/dev/null | sed -n 's/^redis_version://p' | tr -d '\r'), $(redis-benchmark --version 2>/dev/null | cut -d' ' -f1-2), PostgreSQL server $(psql -h 127.0.0.1 -U postgres -d test -Atc 'show server_version' 2>/dev/null | cut -d' ' -f1), SQLite JDBC $(pom_version sqlite-jdbc.version)
- command: \`$2\`

HDR
}

run_jar() { # NAME [options]: the harness's Markdown on stdout
  local name="$1"; shift
  local quick=()
  if [ "${BENCH_QUICK:-0}" = 1 ]; then
    case "$name" in
      limiter) quick=(--rounds 1 --warmup-ms 100 --measure-ms 100) ;;
      footprint) quick=(--rounds 1 --keys 100000) ;;
      redis) quick=(--rounds 1 --warmup-ms 100 --measure-ms 300) ;;
      redis-cluster) quick=(--rounds 1 --warmup-ms 100 --measure-ms 300) ;;
      sdk) quick=(--rounds 1 --warmup-calls 300 --calls 1000) ;;
      delivery) quick=(--rounds 1 --events 200) ;;
      sim) quick=(--rounds 1 --clients 1000 --seconds 60) ;;
      keys) quick=(--quick true) ;;
    esac
  fi
  timeout --kill-after=10 "$timeout_s" "$JAVA" -Xms2g -Xmx6g -jar "$bench_jar" "$name" "${quick[@]}" "$@"
}

bench_java() { # NAME: one Java harness into its results file
  local name="$1" file="$out_dir/$1.md" tmp
  tmp=$(mktemp)
  local cmd="bench/run.sh $name${extra[*]:+ -- ${extra[*]}}"
  echo "bench: $name (at most ${timeout_s}s)" >&2
  local head; head=$(header "$name" "$cmd") # date and load average as the run starts
  if run_jar "$name" "${extra[@]}" >"$tmp"; then
    # JMH echoes its forks' JDK warnings (sun.misc.Unsafe) on stdout: not results
    { echo "$head"; echo; grep -v '^WARNING: ' "$tmp" | targets_last; notes "$name"; } >"$file"
    echo "bench: wrote $file" >&2
  else
    echo "bench: $name failed or timed out; $file not written" >&2
    rm -f "$tmp"
    return 1
  fi
  rm -f "$tmp"
}

targets_last() { # the <!-- target … --> lines (for SUMMARY.md) after the tables, where they break none
  awk '/^<!-- target \|/ { t = t $0 "\n"; next } { print } END { if (t != "") printf "\n%s", t }'
}

notes() { # NAME: the hand-written notes kept in bench/notes/NAME.md, if any
  [ -f "$root/bench/notes/$1.md" ] && { echo; cat "$root/bench/notes/$1.md"; }
  return 0
}

need_packages
EDGE_PIDS=()
build

status=0
case "$what" in
  limiter|footprint|redis|redis-cluster|sdk|delivery|sim|keys) bench_java "$what" || status=1 ;;
  edge) . "$root/bench/edge.sh"; bench_edge || status=1 ;;
  all)
    for n in limiter footprint redis redis-cluster sdk delivery sim keys; do bench_java "$n" || status=1; done
    . "$root/bench/edge.sh"; bench_edge || status=1 ;;
  *) echo "usage: bench/run.sh [limiter|footprint|edge|redis|redis-cluster|sdk|delivery|sim|keys|all]" >&2; exit 2 ;;
esac
[ "${BENCH_QUICK:-0}" = 1 ] || "$root/bench/summary.sh"
exit $status
