#!/bin/sh
# The `postgres-replica` service of docker-compose.yml (profile `replica`): a hot standby streaming
# from the `postgres` service. On first start (an empty volume) it copies the primary with
# pg_basebackup -R, which also writes the standby's primary_conninfo and standby.signal; later starts
# resume streaming from where the volume left off. No replication slot is made, so a standby that
# stays down longer than the primary keeps WAL (wal_keep_size, see the `postgres` service) needs its
# volume removed and copied afresh.
set -eu
: "${PGDATA:?}" "${PRIMARY_HOST:?}" "${PGUSER:?}" "${PGPASSWORD:?}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  # The primary may still be starting, or refuse until its first init is done: retry from a clean directory.
  until pg_basebackup -h "$PRIMARY_HOST" -D "$PGDATA" -R -X stream --checkpoint=fast --no-password; do
    echo "postgres-standby: base backup from $PRIMARY_HOST failed, retrying in 2 s" >&2
    find "$PGDATA" -mindepth 1 -delete
    sleep 2
  done
  chmod 700 "$PGDATA"
fi
exec postgres -c hot_standby=on
