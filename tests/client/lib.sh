# What the client checks (run.sh, sdk.sh) share; sourced after `set -euo pipefail`:
#   client_begin NAME TACTICSD OPENAPI_DIR  sets tacticsd, openapi (absolute), here (this folder)
#                                           and work, a scratch folder removed at exit with the
#                                           server still running, if it is;
#   server_up                               starts tacticsd on a port the kernel picks
#                                           (--port 0), read from its "listening" line, which
#                                           is waited for however long it takes unless the
#                                           server exits first; sets port;
#   server_down                             SIGTERM, and fails unless it exits 0 with no
#                                           sanitizer report in its log.
name=client
pid=
client_cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}

client_begin() {
  name=$1
  tacticsd=$2
  openapi=$(cd "$3" && pwd)
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  work=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX")
  trap client_cleanup EXIT
}

server_up() {
  "$tacticsd" --port 0 --db "$work/t.db" >"$work/server.log" 2>&1 &
  pid=$!
  until port=$(grep -o '"event":"listening".*"port":[0-9]*' "$work/server.log" | grep -o '[0-9]*$'); do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "$name: tacticsd exited during start-up" >&2
      cat "$work/server.log" >&2
      exit 1
    fi
    sleep 0.05
  done
}

server_down() {
  kill -TERM "$pid"
  wait "$pid" || { echo "$name: tacticsd exited $?" >&2; cat "$work/server.log" >&2; exit 1; }
  pid=
  if grep -q "Sanitizer" "$work/server.log"; then
    cat "$work/server.log" >&2
    exit 1
  fi
}
