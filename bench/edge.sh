# Sourced by bench/run.sh: the edge against nginx limit_req, both in front of one nginx static upstream.
#
# Ports (loopback): 18081 upstream nginx (static file /ok, 3 bytes), 18082 nginx limit_req front,
# 18083 nginx limit_req front over h2c (listen ... http2, prior knowledge),
# 18090 Sluice edge (RateLimit fields on), 18092 Sluice edge (fields off; admin ports +1; both speak h2c
# with prior knowledge on the same port), 18094 the fields-off edge with its resource bounds off.
# Load: wrk -t2 -c64 (BENCH_EDGE_CONNECTIONS), BENCH_EDGE_SECONDS (5) measured after 1 s of warm-up
# per case, rounds (BENCH_EDGE_ROUNDS, 5) interleaving every case; the h2c rejection cases with
# h2load -t2 -c16 -m10 (BENCH_EDGE_H2_CONNECTIONS, BENCH_EDGE_H2_STREAMS) in the same rounds; the
# admitted path's latency at a fixed offered rate (OpenLoop in sluice-bench: BENCH_EDGE_OPEN_RATE 3000 req/s,
# BENCH_EDGE_OPEN_CONNECTIONS 4, BENCH_EDGE_OPEN_SECONDS 8) in the same rounds too.
# nginx runs in the foreground as this script's child with its own prefix under /tmp and is stopped
# at exit, as are the edges. nginx setting compared: access_log off and error_log at crit, so
# rejections are not logged (nginx's fastest setting; by default it logs each rejection at error).

bench_edge() {
  local rounds="${BENCH_EDGE_ROUNDS:-5}" secs="${BENCH_EDGE_SECONDS:-5}" conns="${BENCH_EDGE_CONNECTIONS:-64}"
  if [ "${BENCH_QUICK:-0}" = 1 ]; then rounds=1; secs=1; fi
  local prefix; prefix=$(mktemp -d /tmp/sluice-bench-nginx.XXXXXX)
  local raw="$prefix/raw.tsv" h2raw="$prefix/h2c.tsv"
  local h2conns="${BENCH_EDGE_H2_CONNECTIONS:-16}" h2streams="${BENCH_EDGE_H2_STREAMS:-10}"
  local openraw="$prefix/open.tsv" openrate="${BENCH_EDGE_OPEN_RATE:-3000}" opensecs="${BENCH_EDGE_OPEN_SECONDS:-8}"
  local openconns="${BENCH_EDGE_OPEN_CONNECTIONS:-4}"
  [ "${BENCH_QUICK:-0}" = 1 ] && opensecs=1
  EDGE_PIDS=()
  chmod 755 "$prefix"   # nginx workers run as nobody and must read html/
  mkdir -p "$prefix/html/reject" "$prefix/logs"
  printf 'ok\n' >"$prefix/html/ok"; printf 'ok\n' >"$prefix/html/reject/ok"
  cat >"$prefix/nginx.conf" <<NGX
daemon off;
worker_processes 2;
pid $prefix/nginx.pid;
error_log $prefix/logs/error.log crit;
events { worker_connections 8192; }
http {
  access_log off;
  keepalive_requests 100000000;
  limit_req_status 429;
  limit_req_zone \$http_authorization zone=reject:10m rate=1r/m;
  limit_req_zone \$http_authorization zone=admit:10m rate=1000000r/s;
  upstream static { server 127.0.0.1:18081; keepalive 64; }
  server {
    listen 127.0.0.1:18081;
    root $prefix/html;
    location / { }
  }
  server {
    listen 127.0.0.1:18082;
    root $prefix/html;
    # a limited location serving a tiny static file: "return 200" would run before limit_req
    location /reject/ { limit_req zone=reject; }
    location = /ok {
      limit_req zone=admit burst=2000000 nodelay;
      proxy_pass http://static;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
  server {
    listen 127.0.0.1:18083 http2;   # h2c with prior knowledge
    root $prefix/html;
    location /reject/ { limit_req zone=reject; }
  }
}
NGX
  for fields in on off; do
    local port=18090; [ "$fields" = off ] && port=18092
    cat >"$prefix/edge-$fields.yaml" <<YML
listen: 127.0.0.1:$port
admin: 127.0.0.1:$((port + 1))
upstream:
  url: http://127.0.0.1:18081
  pool-size: 64
store: memory
rate-limit-fields: $fields
plans:
  reject:                     # 1 per minute, as nginx rate=1r/m without burst
    policies:
      - { name: burst, kind: burst, q: 1, w: 60 }
  admit:                      # 1,000,000/s with a burst of 2,000,000, as nginx rate=1000000r/s burst=2000000
    policies:
      - { name: burst, kind: burst, q: 2000000, w: 2 }
keys:
  sk_bench_reject: reject
  sk_bench_admit: admit
routes:
  - { method: GET, path: /ok }
  - { method: GET, path: /reject/ok }
YML
  done
  # the fields-off edge with every resource bound switched off or set out of reach (the cost of the bounds)
  sed -e 's|^listen: 127.0.0.1:18092$|listen:\
  host: 127.0.0.1\
  port: 18094\
  max-connections: 0                         # default auto: the descriptor limit less 1,024\
  max-connections-per-ip: 0                  # default 1024\
  min-body-rate: 0                           # default 240 bytes/s\
  write-timeout: 1000000s                    # default 30s\
  max-upstream-streams-per-connection: 100000 # default 8|' \
      -e 's|^admin: 127.0.0.1:18093$|admin: 127.0.0.1:18095\
shedding:\
  fair-share-window: off                     # default 5s|' "$prefix/edge-off.yaml" >"$prefix/edge-unbounded.yaml"
  cat >"$prefix/report.lua" <<'LUA'
done = function(summary, latency, requests)
  io.write(string.format("WRK\t%.1f\t%d\t%d\t%d\t%d\t%d\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(50), latency:percentile(99),
    latency:percentile(99.9), summary.errors.status, summary.requests))
end
LUA
  cleanup_edge() {
    for p in "${EDGE_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${EDGE_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
    EDGE_PIDS=()
  }
  trap cleanup_edge EXIT
  nginx -p "$prefix" -c "$prefix/nginx.conf" &
  EDGE_PIDS+=($!)
  for fields in on off unbounded; do
    "$JAVA" -jar "$cli_jar" edge --config "$prefix/edge-$fields.yaml" --no-watch >"$prefix/logs/edge-$fields.log" 2>&1 &
    EDGE_PIDS+=($!)
  done
  local ok=0
  for _ in $(seq 1 300); do
    if curl -fs -m 2 -o /dev/null http://127.0.0.1:18081/ok \
       && curl -fs -m 2 -o /dev/null -H 'Authorization: Bearer sk_bench_admit' http://127.0.0.1:18090/ok \
       && curl -fs -m 2 -o /dev/null -H 'Authorization: Bearer sk_bench_admit' http://127.0.0.1:18092/ok \
       && curl -fs -m 2 -o /dev/null -H 'Authorization: Bearer sk_bench_admit' http://127.0.0.1:18094/ok; then ok=1; break; fi
    sleep 0.2
  done
  if [ "$ok" != 1 ]; then
    echo "bench: edge or nginx did not answer within a minute; logs:" >&2
    tail -n 20 "$prefix"/logs/*.log >&2
    cleanup_edge
    return 1
  fi
  {
    echo "Responses as served (the second request of the rejected key, each):"
    echo
    echo '```'
    for u in "18082/reject/ok" "18090/reject/ok" "18092/reject/ok"; do
      curl -s -o /dev/null -H 'Authorization: Bearer sk_bench_reject' "http://127.0.0.1:$u"
      echo "# GET :$u"; curl -s -i -H 'Authorization: Bearer sk_bench_reject' "http://127.0.0.1:$u" | tr -d '\r' | head -n 20; echo
    done
    echo '```'
  } >"$prefix/samples.md"

  local cases=(
    "direct to upstream (nginx static)|http://127.0.0.1:18081/ok|sk_bench_admit"
    "rejected: nginx limit_req|http://127.0.0.1:18082/reject/ok|sk_bench_reject"
    "rejected: Sluice, fields on|http://127.0.0.1:18090/reject/ok|sk_bench_reject"
    "rejected: Sluice, fields off|http://127.0.0.1:18092/reject/ok|sk_bench_reject"
    "rejected: Sluice, fields off, bounds off|http://127.0.0.1:18094/reject/ok|sk_bench_reject"
    "admitted: nginx limit_req + proxy_pass|http://127.0.0.1:18082/ok|sk_bench_admit"
    "admitted: Sluice, fields on|http://127.0.0.1:18090/ok|sk_bench_admit"
    "admitted: Sluice, fields off|http://127.0.0.1:18092/ok|sk_bench_admit"
  )
  local h2cases=(
    "h2c rejected: nginx limit_req|http://127.0.0.1:18083/reject/ok"
    "h2c rejected: Sluice, fields on|http://127.0.0.1:18090/reject/ok"
    "h2c rejected: Sluice, fields off|http://127.0.0.1:18092/reject/ok"
  )
  local opencases=( # the admitted path at a fixed offered rate below saturation: latency, not throughput
    "open loop: direct to upstream (nginx static)|http://127.0.0.1:18081/ok"
    "open loop: Sluice, fields on|http://127.0.0.1:18090/ok"
    "open loop: nginx limit_req + proxy_pass|http://127.0.0.1:18082/ok"
  )
  openrun() { # URL: one open-loop run (1 s unrecorded at the same rate, then opensecs recorded)
    "$JAVA" -Xmx256m -cp "$bench_jar" dev.sluice.bench.edge.OpenLoop "$1" "$openrate" 1 "$opensecs" "$openconns" \
      'Authorization: Bearer sk_bench_admit' | grep '^OPEN' | cut -f2-
  }
  h2run() { # SECONDS URL: "req/s non-2xx requests" of one h2load run
    h2load -t2 -c"$h2conns" -m"$h2streams" -D "$1" -H 'Authorization: Bearer sk_bench_reject' "$2" 2>/dev/null \
      | awk '/^finished in/ { gsub(",", "", $4); rps = $4 }
             /^requests:/ { done = $6 }
             /^status codes:/ { ok = $3 }
             END { printf "%s\t%d\t%d\n", rps, done - ok, done }'
  }
  : >"$raw"; : >"$h2raw"; : >"$openraw"
  local cmd="bench/run.sh edge (wrk -t2 -c$conns -d${secs}s --latency, $rounds rounds)"
  local head; head=$(header edge "$cmd") # date and load average as the run starts
  # warm the JVMs up before the first round
  for c in "${cases[@]}"; do
    IFS='|' read -r label url key <<<"$c"
    wrk -t2 -c"$conns" -d"$((secs > 2 ? 3 : 1))"s -H "Authorization: Bearer $key" "$url" >/dev/null
  done
  if command -v h2load >/dev/null 2>&1; then # and their HTTP/2 code, which the first h2c round would pay for
    for c in "${h2cases[@]}"; do
      IFS='|' read -r label url <<<"$c"
      h2run "$((secs > 2 ? 3 : 1))" "$url" >/dev/null
    done
  fi
  for r in $(seq 1 "$rounds"); do
    for c in "${cases[@]}"; do
      IFS='|' read -r label url key <<<"$c"
      wrk -t2 -c"$conns" -d1s -H "Authorization: Bearer $key" "$url" >/dev/null
      local line
      line=$(wrk -t2 -c"$conns" -d"${secs}s" --latency -s "$prefix/report.lua" -H "Authorization: Bearer $key" "$url" | grep '^WRK' | cut -f2-)
      printf '%s\t%s\n' "$label" "$line" >>"$raw"
      echo "bench: edge round $r/$rounds $label: $(cut -f1 <<<"$line") req/s" >&2
    done
    if command -v h2load >/dev/null 2>&1; then
      for c in "${h2cases[@]}"; do
        IFS='|' read -r label url <<<"$c"
        h2run 1 "$url" >/dev/null
        local line; line=$(h2run "$secs" "$url")
        printf '%s\t%s\n' "$label" "$line" >>"$h2raw"
        echo "bench: edge round $r/$rounds $label: $(cut -f1 <<<"$line") req/s" >&2
      done
    fi
    for c in "${opencases[@]}"; do
      IFS='|' read -r label url <<<"$c"
      local line; line=$(openrun "$url")
      printf '%s\t%s\n' "$label" "$line" >>"$openraw"
      echo "bench: edge round $r/$rounds $label: p99 $(cut -f3 <<<"$line") µs" >&2
    done
  done
  cleanup_edge
  trap - EXIT
  {
    echo "$head"
    echo
    "$JAVA" -cp "$bench_jar" dev.sluice.bench.edge.EdgeReport "$raw" "$conns" "$h2raw" "h2load -t2 -c$h2conns -m$h2streams" \
      "$openraw" "$openrate req/s offered over $openconns connections, 1 s unrecorded then ${opensecs} s" | targets_last
    echo
    cat "$prefix/samples.md"
    echo
    echo "nginx configuration used (prefix under /tmp):"
    echo
    echo '```nginx'
    sed "s|$prefix|PREFIX|g" "$prefix/nginx.conf"
    echo '```'
    echo
    echo "Sluice edge configuration (fields on; the other differs in port and \`rate-limit-fields: off\`):"
    echo
    echo '```yaml'
    cat "$prefix/edge-on.yaml"
    echo '```'
    echo
    echo "The fields-off edge with its resource bounds off (the \"bounds off\" case):"
    echo
    echo '```yaml'
    cat "$prefix/edge-unbounded.yaml"
    echo '```'
    echo
    echo "Edge log lines at WARN or above during the run (count, first 100 characters):"
    echo
    echo '```'
    cat "$prefix"/logs/edge-*.log | grep -E ' (WARN|ERROR) ' | cut -c1-100 | sed 's/key_id=k[0-9a-f]*/key_id=…/' | sort | uniq -c | sort -rn | head -n 12
    echo '```'
    notes edge
  } >"$out_dir/edge.md"
  echo "bench: wrote $out_dir/edge.md" >&2
  rm -rf "$prefix"
}
