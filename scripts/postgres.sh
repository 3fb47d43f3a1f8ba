#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on a free loopback port, for the example and its tests.
#
#   bash scripts/postgres.sh start   start the cluster (or reuse the running one) and print its URL
#   bash scripts/postgres.sh url     print the URL of the running cluster
#   bash scripts/postgres.sh dir     print the directory the cluster lives in
#   bash scripts/postgres.sh stop    stop the cluster and delete it
#
# The server binaries come from the machine (Debian: /usr/lib/postgresql/*/bin); when absent
# they are installed with apt-get. The cluster lives in a fixed temporary directory
# (COMPLETENESS_POSTGRES_DIR, default $TMPDIR/completeness-postgres) and runs as an
# unprivileged user: the `postgres` system user when started as root (created if missing),
# otherwise the caller. Every connection from 127.0.0.1 is trusted: it is a test cluster.
# Only the URL goes to stdout; progress and errors go to stderr.
set -euo pipefail

dir="${COMPLETENESS_POSTGRES_DIR:-${TMPDIR:-/tmp}/completeness-postgres}"
data="$dir/data"

fail() {
  echo "postgres.sh: $*" >&2
  exit 1
}

# The directory holding initdb and pg_ctl, installing the server package when none is found.
bindir() {
  local found
  found="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  if [[ -n "$found" && -x "$found/initdb" ]]; then
    echo "$found"
    return
  fi
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    dirname "$(command -v initdb)"
    return
  fi
  command -v apt-get >/dev/null 2>&1 || fail "no PostgreSQL server binaries (initdb, pg_ctl) and no apt-get to install them"
  [[ "$(id -u)" == 0 ]] || fail "no PostgreSQL server binaries (initdb, pg_ctl); install the postgresql package (needs root)"
  echo "postgres.sh: installing the postgresql package" >&2
  apt-get update >&2 || fail "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql >&2 ||
    fail "apt-get install postgresql failed"
  found="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  [[ -n "$found" && -x "$found/initdb" ]] || fail "the postgresql package installed no initdb"
  echo "$found"
}

# Runs a command as the cluster's owner.
as_owner() {
  if [[ "$(id -u)" == 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

url() {
  local port
  port="$(cat "$dir/port" 2>/dev/null)" || fail "no cluster: run 'bash scripts/postgres.sh start'"
  echo "postgres://postgres@127.0.0.1:$port/postgres"
}

running() {
  [[ -f "$data/postmaster.pid" ]] && as_owner "$bin/pg_ctl" status -D "$data" >/dev/null 2>&1
}

# A loopback port nobody listens on.
free_port() {
  local port
  for _ in $(seq 1 200); do
    port=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return
    fi
  done
  fail "no free loopback port found"
}

start() {
  bin="$(bindir)"
  if [[ "$(id -u)" == 0 ]] && ! id postgres >/dev/null 2>&1; then
    useradd --system --home-dir "$dir" --shell /usr/sbin/nologin postgres || fail "could not create the postgres user"
  fi
  mkdir -p "$dir"
  [[ "$(id -u)" == 0 ]] && chown postgres "$dir"
  if running; then
    url
    return
  fi
  if [[ ! -f "$data/PG_VERSION" ]]; then
    rm -rf "$data"
    as_owner "$bin/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 --locale=C >"$dir/initdb.log" 2>&1 ||
      fail "initdb failed: $(tail -n 5 "$dir/initdb.log")"
  fi
  local port attempt
  for attempt in 1 2 3; do
    port="$(free_port)"
    if as_owner "$bin/pg_ctl" start -D "$data" -w -t 60 -l "$dir/server.log" \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
      >/dev/null 2>&1 9>&-; then
      echo "$port" >"$dir/port"
      url
      return
    fi
    echo "postgres.sh: start attempt $attempt on port $port failed" >&2
  done
  fail "pg_ctl start failed: $(tail -n 5 "$dir/server.log" 2>/dev/null)"
}

stop() {
  bin="$(bindir)"
  if running; then
    as_owner "$bin/pg_ctl" stop -D "$data" -m fast -w >/dev/null || fail "pg_ctl stop failed"
  fi
  rm -rf "$dir"
}

command="${1:-}"
case "$command" in
  start | stop)
    # One caller at a time: parallel tests may all ask for the cluster at once.
    mkdir -p "$(dirname "$dir")"
    exec 9>"$dir.lock"
    flock 9
    "$command"
    ;;
  url) url ;;
  dir) echo "$dir" ;;
  *) fail "usage: bash scripts/postgres.sh start|stop|url|dir" ;;
esac
