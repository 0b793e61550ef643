#!/usr/bin/env bash
# A PostgreSQL 15 primary and a real streaming replica of it (pg_basebackup), for the read-replica suite
# (tests/platform/replica.test.ts): primary on 127.0.0.1:5433, replica on 127.0.0.1:5434, whose replay waits
# APPLY_DELAY (recovery_min_apply_delay) so its lag is visible. A cluster of their own, not the machine's: a base
# backup copies a whole cluster, and the machine's may hold large benchmark databases. Idempotent; prints the two
# URLs' environment for the suite.
set -euo pipefail
BIN=$(ls -d /usr/lib/postgresql/15/bin)
BASE=${REPLICA_DIR:-/tmp/lpqs-replica}
PRIMARY_PORT=${PRIMARY_PORT:-5433}
REPLICA_PORT=${REPLICA_PORT:-5434}
APPLY_DELAY=${APPLY_DELAY:-2s}

# PostgreSQL refuses to run as root.
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
ready() { "$BIN/pg_isready" -h 127.0.0.1 -p "$1" -q; }

mkdir -p "$BASE"
[ "$(id -u)" = 0 ] && chown postgres "$BASE"
if [ ! -f "$BASE/primary/PG_VERSION" ]; then
  as_pg "$BIN/initdb" -D "$BASE/primary" -A trust -U postgres >/dev/null
  cat >>"$BASE/primary/postgresql.conf" <<CONF
port = $PRIMARY_PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '$BASE'
wal_level = replica
max_wal_senders = 4
fsync = off
CONF
fi
ready "$PRIMARY_PORT" || as_pg "$BIN/pg_ctl" -D "$BASE/primary" -l "$BASE/primary.log" -w start >/dev/null
if [ ! -f "$BASE/replica/PG_VERSION" ]; then
  # initdb's pg_hba.conf lets 127.0.0.1 replicate (trust); -R writes the standby's primary_conninfo.
  as_pg "$BIN/pg_basebackup" -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -D "$BASE/replica" -R -X stream
  cat >>"$BASE/replica/postgresql.conf" <<CONF
port = $REPLICA_PORT
hot_standby = on
recovery_min_apply_delay = '$APPLY_DELAY'
CONF
fi
ready "$REPLICA_PORT" || as_pg "$BIN/pg_ctl" -D "$BASE/replica" -l "$BASE/replica.log" -w start >/dev/null
echo "LPQS_REPLICA_PRIMARY_URL=postgres://postgres@127.0.0.1:$PRIMARY_PORT/postgres"
echo "LPQS_REPLICA_READ_URL=postgres://postgres@127.0.0.1:$REPLICA_PORT/postgres"
