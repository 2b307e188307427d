# Shared by the bench scripts: build Release and start tacticsd on a free port with a
# temporary database. Sets $tmp, $pid and $port; the caller's EXIT trap must call bench_stop.
# The port a tacticsd started with --port 0 listens on, from its log (waiting for it to listen).
bench_port_of() {
  for _ in $(seq 100); do grep -q '"listening"' "$1" 2>/dev/null && break; sleep 0.05; done
  grep -o '"port":[0-9]*' "$1" | head -1 | cut -d: -f2
}

bench_start() {
  command -v wrk >/dev/null || { echo "bench: install wrk (apt-get install wrk)" >&2; exit 2; }
  make build >/dev/null
  tmp=$(mktemp -d)
  build/release/service/tacticsd --port 0 --db "$tmp/bench.db" 2>"$tmp/log" &
  pid=$!
  port=$(bench_port_of "$tmp/log")
}

bench_stop() {
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -rf "$tmp"
}
