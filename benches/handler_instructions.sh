#!/usr/bin/env bash
# Instructions per request of the sides `cargo bench --bench handler` compares, counted under
# valgrind's callgrind. The wall-clock ratios move with the machine's load; these do not, so
# they settle a ratio that the wall clock leaves inside its noise.
#
# Each side runs LOW and then HIGH requests, each time in a fresh process; the difference,
# divided by HIGH - LOW, is its cost per request without start-up.
#
# Read the list/bare ratio with one caveat. Under valgrind, sha2 cannot use the CPU's SHA
# extensions and runs its portable code. So the list handler's cursor HMAC and fingerprints
# count about 27k instructions per request here, where natively they take about 0.7 µs
# (`cargo bench --bench cursor`). The ratio here is therefore lower than the native one.
#
# Usage: benches/handler_instructions.sh [LOW HIGH]   (default 200 1000; needs valgrind)
set -euo pipefail

LOW="${1:-200}"
HIGH="${2:-1000}"
if ! [[ "$LOW" =~ ^[0-9]+$ && "$HIGH" =~ ^[0-9]+$ ]] || (( HIGH <= LOW )); then
  echo "usage: $0 [LOW HIGH], two request counts with LOW < HIGH" >&2
  exit 2
fi
command -v valgrind > /dev/null || { echo "$0 needs valgrind on PATH" >&2; exit 1; }
cd "$(dirname "${BASH_SOURCE[0]}")/.."

exe=$(cargo bench --bench handler --no-run 2>&1 | sed -n 's/.*Executable .*(\(.*\))$/\1/p' | tail -1)
[ -x "$exe" ] || { echo "could not build the handler bench" >&2; exit 1; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# Instructions of one process running side $1 for $2 requests.
count() {
  HANDLER_BENCH_SIDE="$1" HANDLER_BENCH_REQUESTS="$2" \
    valgrind --tool=callgrind --callgrind-out-file=/dev/null --log-file="$log" "$exe" > /dev/null
  grep -o 'Collected : [0-9]*' "$log" | awk '{print $3}'
}

# Instructions per request of side $1.
per_request() {
  local low high
  low=$(count "$1" "$LOW")
  high=$(count "$1" "$HIGH")
  awk -v l="$low" -v h="$high" -v n=$((HIGH - LOW)) 'BEGIN { printf "%.0f", (h - l) / n }'
}

bare=$(per_request bare)
list=$(per_request list)
bare_observed=$(per_request bare_observed)
list_observed=$(per_request list_observed)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }

echo "instructions per request, 100 items per response (callgrind, $((HIGH - LOW)) requests):"
printf '  bare Json<Vec<Item>>                     %9d\n' "$bare"
printf '  completeness list handler                %9d\n' "$list"
printf '  list handler, subscriber and recorder    %9d\n' "$list_observed"
printf '  bare handler, subscriber and recorder    %9d\n' "$bare_observed"
echo "  throughput ratio list/bare: $(ratio "$bare" "$list") (software SHA-256: see the caveat above)"
echo "  throughput ratio with/without observers, list: $(ratio "$list" "$list_observed")"
echo "  throughput ratio with/without observers, bare: $(ratio "$bare" "$bare_observed")"
