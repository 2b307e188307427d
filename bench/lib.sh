# Shared by the bench scripts: build Release and start tacticsd on a free port with a
# temporary database. Sets $tmp, $pid and $port; the caller's EXIT trap must call bench_stop.
bench_start() {
  command -v wrk >/dev/null || { echo "bench: install wrk (apt-get install wrk)" >&2; exit 2; }
  make build >/dev/null
  tmp=$(mktemp -d)
  build/release/service/tacticsd --port 0 --db "$tmp/bench.db" 2>"$tmp/log" &
  pid=$!
  for _ in $(seq 100); do grep -q '"listening"' "$tmp/log" 2>/dev/null && break; sleep 0.05; done
  port=$(grep -o '"port":[0-9]*' "$tmp/log" | head -1 | cut -d: -f2)
}

bench_stop() {
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -rf "$tmp"
}
