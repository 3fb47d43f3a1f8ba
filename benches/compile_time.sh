#!/usr/bin/env bash
# Compile-time cost of the macros: `cargo check` of a crate with 100 `#[completeness]` handlers
# (64 different combinations of declared reasons; 25 of them also declare one of four reasons and
# one of two warnings of the service's own) returning derived envelopes, against a twin
# crate with the same 100 handlers unannotated,
# returning hand-written envelope structs (hand-written Serialize, ReportsCompleteness and
# IntoResponse). Dependencies are checked once first; then each crate's source is touched and
# checked REPS times (interleaved), and the median times and their ratio are printed
# (target: <= 1.3).
#
# Usage: benches/compile_time.sh [REPS]   (default 5)
# COMPILE_TIME_WORKDIR=DIR keeps the generated crates (and their target dir) in DIR.
# COMPILE_TIME_MACRO_OPT=LEVEL builds proc macros at that opt-level
# (`[profile.dev.build-override] opt-level = LEVEL`), as a user's workspace can.
# COMPILE_TIME_FLOOR=1 also checks a third crate, the hand-written twin plus, for each handler, the
# items its declaration needs, written by hand as `#[completeness]` generates them (the set type,
# its `ReasonSet` constant, one `Declares`/`DeclaresWarning` impl per name), with no macro at
# all: the floor of any design that gives each endpoint a reason type of its own.
# COMPILE_TIME_INSTRUCTIONS=1 also counts the instructions of one touched-source check of each
# crate's own rustc, under valgrind's callgrind (valgrind must be installed). Wall time moves
# with the machine's load; the instruction count of the same input does not, so a change to
# the macros can be measured to the percent.
set -euo pipefail

REPS="${1:-5}"
HANDLERS=100
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${COMPILE_TIME_WORKDIR:-$(mktemp -d)}"
if [ -z "${COMPILE_TIME_WORKDIR:-}" ]; then trap 'rm -rf "$WORK"' EXIT; fi

CRATES=(annotated plain)
if [ -n "${COMPILE_TIME_FLOOR:-}" ]; then CRATES+=(items); fi
for crate in "${CRATES[@]}"; do mkdir -p "$WORK/$crate/src"; done
cat > "$WORK/Cargo.toml" <<TOML
[workspace]
members = [$(printf '"%s", ' "${CRATES[@]}")]
resolver = "3"
TOML
if [ -n "${COMPILE_TIME_MACRO_OPT:-}" ]; then
  printf '\n[profile.dev.build-override]\nopt-level = %s\n' "$COMPILE_TIME_MACRO_OPT" >> "$WORK/Cargo.toml"
fi
cp "$REPO/Cargo.lock" "$WORK/Cargo.lock"
for crate in "${CRATES[@]}"; do
  cat > "$WORK/$crate/Cargo.toml" <<TOML
[package]
name = "bench_$crate"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
completeness = { path = "$REPO" }
axum = { version = "0.8", default-features = false, features = ["json", "query"] }
serde = { version = "1", features = ["derive"] }
serde_json = "1"
TOML
done

# Handlers 1 to $OWN also report a reason and a warning of the service's own.
OWN=25

# The body of handler $1, whose scope names resource $2 (empty: the macro fills it in).
handler() {
  local own=""
  if (( $1 <= OWN )); then
    own="    if query.len() > 3 {
        completeness.push_reason(own::Reason$(( $1 % 4 )) { shard: 1 });
        completeness.push_warning(own::Warning$(( $1 % 2 )) { seconds: 2 });
    }"
  fi
  cat <<RS
pub async fn list_$1(Query(query): Query<Vec<(String, String)>>) -> Page$1 {
    let mut completeness = Completeness::complete(Scope::new("$2", "all"));
    if query.is_empty() {
        completeness.push_reason(VisibilityRestricted::new());
    } else {
        completeness.push_reason(MorePagesAvailable::new("next"));
    }
$own
    Page$1 { items: query.into_iter().map(|(k, _)| k).collect(), completeness }
}
RS
}

# The service's own reasons and warnings, declared with the derives.
own_derived() {
  echo 'pub mod own {'
  for r in 0 1 2 3; do
    cat <<RS
    #[derive(Debug, Clone, completeness::Reason)]
    #[reason(code = "OWN_REASON_$r", kind = source, message = "Shard {shard} is away ($r).")]
    pub struct Reason$r {
        pub shard: u32,
    }
RS
  done
  for w in 0 1; do
    cat <<RS
    #[derive(Debug, Clone, completeness::Warning)]
    #[warning(code = "OWN_WARNING_$w", owner = "team", review_by = "2030-01-01", message = "Lag {seconds} s ($w).")]
    pub struct Warning$w {
        pub seconds: u64,
    }
RS
  done
  echo '}'
}

# The same reasons and warnings, written by hand.
own_by_hand() {
  echo 'pub mod own {'
  echo '    use completeness::__private::serde::ser::SerializeMap;'
  echo '    use completeness::{Continuation, ReasonCode, ReasonDetails, ReasonKind, StandardReason, WarningCode, WarningDetails};'
  echo '    use serde_json::{Map, Value};'
  for r in 0 1 2 3; do
    cat <<RS
    #[derive(Debug, Clone)]
    pub struct Reason$r {
        pub shard: u32,
    }
    impl ReasonDetails for Reason$r {
        const CODE: ReasonCode = ReasonCode::custom("OWN_REASON_$r");
        const KIND: ReasonKind = ReasonKind::Source;
        fn default_message(&self) -> String {
            format!("Shard {} is away ($r).", self.shard)
        }
        fn write_details<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
            map.serialize_entry("shard", &self.shard)
        }
        fn read_details(object: &Map<String, Value>) -> Result<Self, String> {
            let shard = object.get("shard").and_then(Value::as_u64).ok_or("bad shard")?;
            Ok(Reason$r { shard: shard as u32 })
        }
        fn recovery(&self) -> Option<Continuation> {
            None
        }
        fn into_reason(self) -> StandardReason {
            StandardReason::Custom(completeness::CustomReason::from_details(&self))
        }
    }
RS
  done
  for w in 0 1; do
    cat <<RS
    #[derive(Debug, Clone)]
    pub struct Warning$w {
        pub seconds: u64,
    }
    impl WarningDetails for Warning$w {
        const CODE: WarningCode = WarningCode::custom("OWN_WARNING_$w");
        fn message(&self) -> String {
            format!("Lag {} s ($w).", self.seconds)
        }
        fn write_details<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
            map.serialize_entry("seconds", &self.seconds)
        }
        fn read_details(object: &Map<String, Value>) -> Result<Self, String> {
            Ok(Warning$w { seconds: object.get("seconds").and_then(Value::as_u64).ok_or("bad seconds")? })
        }
    }
RS
  done
  echo '}'
}

# The reasons handler $1 declares: the two its body reports, plus a different combination of
# the other six for each handler (64 combinations), so that most endpoints' reason types are
# distinct: the compiler cannot share the work of one between them.
reasons() {
  local extra=(ResultLimitReached TimeBudgetExceeded SourceUnavailable QuotaExhausted ClientLimitReached SnapshotExpired)
  local list="MorePagesAvailable, VisibilityRestricted" bit
  for bit in 0 1 2 3 4 5; do
    if (( ($1 >> bit) & 1 )); then list+=", ${extra[$bit]}"; fi
  done
  echo "$list"
}

# The router over every handler; $1 is what follows `get(list_N)` (`.into()` for the checked
# method router of `completeness::routing`), $2 the router's state (the checked routes read
# the framework's settings from it).
router() {
  echo "pub fn router() -> Router<$2> {"
  echo '    Router::new()'
  for i in $(seq 1 $HANDLERS); do echo "        .route(\"/r$i\", get(list_$i)$1)"; done
  echo '}'
}

# The annotated crate: the macros write the reason types, Serialize and the checks.
{
  echo 'use axum::Router;'
  echo 'use axum::extract::Query;'
  echo 'use completeness::reason::{MorePagesAvailable, VisibilityRestricted};'
  echo 'use completeness::routing::get;'
  echo 'use completeness::{Completeness, ResultEnvelope, Scope, completeness};'
  own_derived
  for i in $(seq 1 $HANDLERS); do
    declared="reasons($(reasons "$i"))"
    if (( i <= OWN )); then
      declared="reasons($(reasons "$i"), own::Reason$(( i % 4 ))), warnings(own::Warning$(( i % 2 )))"
    fi
    cat <<RS
#[derive(ResultEnvelope)]
pub struct Page$i {
    items: Vec<String>,
    #[envelope(completeness)]
    completeness: Completeness<List${i}Reason>,
}

#[completeness(resource = "resource_$i", $declared)]
RS
    handler "$i" ""
  done
  router '.into()' completeness::CompletenessConfig
} > "$WORK/annotated/src/lib.rs"

# The twin: the same handlers, no macros, everything written by hand.
{
  echo 'use axum::Router;'
  echo 'use axum::extract::Query;'
  echo 'use axum::response::{IntoResponse, Response};'
  echo 'use axum::routing::get;'
  echo 'use completeness::reason::{MorePagesAvailable, VisibilityRestricted};'
  echo 'use completeness::{Completeness, CompletenessReport, ReportsCompleteness, Scope, Shape};'
  echo 'use serde::ser::{Serialize, SerializeMap, Serializer};'
  own_by_hand
  for i in $(seq 1 $HANDLERS); do
    cat <<RS
pub struct Page$i {
    items: Vec<String>,
    completeness: Completeness,
}

impl Serialize for Page$i {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        self.completeness.serialize_head(&mut map)?;
        map.serialize_entry("items", &self.items)?;
        self.completeness.serialize_tail(&mut map, Shape::Collection)?;
        map.end()
    }
}

impl ReportsCompleteness for Page$i {
    fn completeness_report(&self) -> Option<&dyn CompletenessReport> {
        Some(&self.completeness)
    }
    fn completeness_report_mut(&mut self) -> Option<&mut dyn CompletenessReport> {
        Some(&mut self.completeness)
    }
}

impl IntoResponse for Page$i {
    fn into_response(self) -> Response {
        axum::Json(self).into_response()
    }
}

RS
    handler "$i" "resource_$i"
  done
  router '' '()'
} > "$WORK/plain/src/lib.rs"

# The floor: the twin plus each handler's declared set, written by hand.
# `constants TRAIT NAME TYPE...`: `<TYPE as TRAIT>::NAME, ` for each type.
constants() {
  local trait="$1" name="$2" ty
  for ty in "${@:3}"; do printf '<%s as %s>::%s, ' "$ty" "$trait" "$name"; done
}
if [ -n "${COMPILE_TIME_FLOOR:-}" ]; then
  {
    cat "$WORK/plain/src/lib.rs"
    echo 'use completeness::__private::{DeclaredSet, ReasonDetails, WarningDetails};'
    echo 'use completeness::reason::*;'
    echo 'use completeness::{Declares, DeclaresWarning, ReasonSet};'
    for i in $(seq 1 $HANDLERS); do
      IFS=', ' read -r -a listed <<< "$(reasons "$i")"
      warned=()
      if (( i <= OWN )); then listed+=("own::Reason$(( i % 4 ))"); warned=("own::Warning$(( i % 2 ))"); fi
      codes=$(constants ReasonDetails CODE "${listed[@]}")
      kinds=$(constants ReasonDetails KIND "${listed[@]}")
      cursors=$(constants ReasonDetails MAY_OFFER_A_CURSOR "${listed[@]}")
      wcodes=$(constants WarningDetails CODE "${warned[@]}")
      stale=$(constants WarningDetails STALE "${warned[@]}")
      details=$(constants ReasonDetails DETAIL_MEMBERS "${listed[@]}")
      wdetails=$(constants WarningDetails DETAIL_MEMBERS "${warned[@]}")
      echo "pub enum Set$i {}"
      echo "impl ReasonSet for Set$i {"
      echo "    const DECLARED: DeclaredSet = DeclaredSet { resource: Some(\"resource_$i\"), reasons: &[$codes], kinds: &[$kinds], cursors: &[$cursors], details: &[$details], warnings: &[$wcodes], stale: &[$stale], warning_details: &[$wdetails] };"
      echo "}"
      for name in "${listed[@]}"; do echo "impl Declares<$name> for Set$i {}"; done
      for name in "${warned[@]}"; do echo "impl DeclaresWarning<$name> for Set$i {}"; done
    done
  } > "$WORK/items/src/lib.rs"
fi

cd "$WORK"
export CARGO_TARGET_DIR="$WORK/target"
echo "warming dependencies (cargo check of the crates once)..."
cargo check --offline --quiet --workspace

# One touched-source `cargo check` of a crate, in seconds.
check_once() {
  local crate="$1" start end
  touch "$WORK/$crate/src/lib.rs"
  start=$(date +%s.%N)
  cargo check --offline --quiet -p "bench_$crate"
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# Interleaved, so that load from other processes hits both crates alike.
annotated_times=() plain_times=() items_times=()
for _ in $(seq 1 "$REPS"); do
  annotated_times+=("$(check_once annotated)")
  plain_times+=("$(check_once plain)")
  if [ -n "${COMPILE_TIME_FLOOR:-}" ]; then items_times+=("$(check_once items)"); fi
done
annotated=$(printf '%s\n' "${annotated_times[@]}" | median)
plain=$(printf '%s\n' "${plain_times[@]}" | median)
ratio=$(echo "$annotated / $plain" | bc -l)
printf 'cargo check, %d handlers, median of %d runs after touching the source\n' "$HANDLERS" "$REPS"
printf '  annotated (#[completeness] + #[derive(ResultEnvelope)]): %.2f s\n' "$annotated"
printf '  hand-written envelopes, unannotated:                    %.2f s\n' "$plain"
printf '  ratio annotated / hand-written: %.2f (target <= 1.3)\n' "$ratio"
if [ -n "${COMPILE_TIME_FLOOR:-}" ]; then
  items=$(printf '%s\n' "${items_times[@]}" | median)
  printf '  floor, hand-written plus the declared sets by hand:     %.2f s\n' "$items"
  printf '  ratio floor / hand-written: %.2f\n' "$(echo "$items / $plain" | bc -l)"
fi

if [ -n "${COMPILE_TIME_INSTRUCTIONS:-}" ]; then
  command -v valgrind > /dev/null || { echo "COMPILE_TIME_INSTRUCTIONS needs valgrind on PATH" >&2; exit 1; }
  # cargo runs every rustc through this wrapper; it runs the bench crates' own rustc under
  # callgrind when asked to, and everything else as is.
  cat > "$WORK/count.sh" <<'SH'
#!/usr/bin/env bash
case " $* " in
  *" --crate-name bench_"*)
    if [ -n "${COUNT_LOG:-}" ]; then
      exec valgrind --tool=callgrind --callgrind-out-file=/dev/null --log-file="$COUNT_LOG" "$@"
    fi ;;
esac
exec "$@"
SH
  chmod +x "$WORK/count.sh"
  export RUSTC_WRAPPER="$WORK/count.sh"
  count() {
    touch "$WORK/$1/src/lib.rs"
    COUNT_LOG="$WORK/count.$1.log" cargo check --offline --quiet -p "bench_$1"
    grep -o 'Collected : [0-9]*' "$WORK/count.$1.log" | awk '{print $3}'
  }
  annotated_instructions=$(count annotated)
  plain_instructions=$(count plain)
  if [ -n "${COMPILE_TIME_FLOOR:-}" ]; then items_instructions=$(count items); fi
  printf 'instructions of rustc, one touched-source check (cargo itself not counted)\n'
  printf '  annotated:    %d\n' "$annotated_instructions"
  printf '  hand-written: %d\n' "$plain_instructions"
  printf '  ratio annotated / hand-written: %.2f\n' "$(echo "$annotated_instructions / $plain_instructions" | bc -l)"
  if [ -n "${COMPILE_TIME_FLOOR:-}" ]; then
    printf '  floor:        %d\n' "$items_instructions"
    printf '  ratio floor / hand-written: %.2f\n' "$(echo "$items_instructions / $plain_instructions" | bc -l)"
  fi
fi
