# Sourced by the CI steps that run against the example service: builds it (with the same
# features as the test step, so after it this is already built), and defines
# `start LOG` (a fresh in-memory service with 300 accounts on a free loopback port; sets `url`)
# and `stop`, which also runs on exit.

cargo build --quiet --all-features --example service_accounts
service=${CARGO_TARGET_DIR:-target}/debug/examples/service_accounts

pid=""
stop() {
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    pid=""
  fi
}
trap stop EXIT

start() {
  local log=$1
  "$service" --addr 127.0.0.1:0 --accounts 300 >"$log" 2>&1 &
  pid=$!
  url=""
  for _ in $(seq 1 100); do
    url=$(sed -n 's/^service_accounts listening on \(http:[^ ]*\).*$/\1/p' "$log")
    [ -n "$url" ] && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "the service did not start:" >&2
  cat "$log" >&2
  return 1
}
