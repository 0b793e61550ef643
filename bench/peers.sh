#!/usr/bin/env bash
# Setup for `npm run bench:peers` (bench/peers.ts): the two peers of issue #10, as Debian bookworm packages them,
# serving OGC API Features over the same PostgreSQL 15 as the service.
#   - QGIS Server 3.22 (qgis-server): qgis_mapserv.fcgi under lighttpd's FastCGI, http://127.0.0.1:8081/wfs3/…
#   - MapServer 8.0 (cgi-mapserver): mapserv under lighttpd's FastCGI, http://127.0.0.1:8082/peers/ogcapi/…
# Both read the table peer_proofs of the database lpqs_bench_peers (created and loaded by bench/peers.ts).
#
# Idempotent, as root on Debian 12:
#   bash bench/peers.sh            install what is missing, write the configs under /tmp/lpqs-peers, (re)start both
#   bash bench/peers.sh restart    only (re)start both (bench/peers.ts calls it after it has reloaded the data)
#   bash bench/peers.sh stop       stop both
# Only processes this script started are stopped, by the pid files it wrote.
set -euo pipefail

DIR=/tmp/lpqs-peers
DB=lpqs_bench_peers
QGIS_PORT=8081
MAPSERVER_PORT=8082
# One FastCGI process per peer: the service is served by one Node process, and bench/peers.ts sends one request at
# a time, so more processes would not shorten a request (and 2 cores are shared with PostgreSQL and the client).
PROCS=${PEERS_FCGI_PROCS:-1}
PACKAGES=(postgresql-15-postgis-3 qgis-server cgi-mapserver lighttpd)

stop() {
  for name in qgis mapserver; do
    local pidfile="$DIR/run/lighttpd-$name.pid"
    if [[ -f $pidfile ]]; then
      local pid
      pid=$(cat "$pidfile")
      # Only if that pid is still the lighttpd this script started (not a recycled pid).
      if [[ -n $pid ]] && grep -q "lighttpd-$name.conf" "/proc/$pid/cmdline" 2>/dev/null; then
        # Its FastCGI processes: mapserv outlives lighttpd's SIGTERM (it waits in accept), so each is ended by pid.
        local children
        children=$(ps -o pid= --ppid "$pid" || true)
        kill "$pid"
        for _ in $(seq 50); do
          kill -0 "$pid" 2>/dev/null || break
          sleep 0.1
        done
        for child in $children; do
          kill "$child" 2>/dev/null || true
        done
      fi
      rm -f "$pidfile"
    fi
  done
}

start() {
  for name in qgis mapserver; do
    rm -f "$DIR/run/$name.sock"*
    lighttpd -f "$DIR/lighttpd-$name.conf"
  done
  for port in $QGIS_PORT $MAPSERVER_PORT; do
    for _ in $(seq 100); do
      curl -s -o /dev/null "http://127.0.0.1:$port/" && break
      sleep 0.1
    done
  done
  echo "peers: QGIS Server on http://127.0.0.1:$QGIS_PORT/wfs3, MapServer on http://127.0.0.1:$MAPSERVER_PORT/peers/ogcapi"
}

case "${1:-setup}" in
  stop)
    stop
    exit 0
    ;;
  restart)
    stop
    start
    exit 0
    ;;
  setup) ;;
  *)
    echo "usage: $0 [setup|restart|stop]" >&2
    exit 2
    ;;
esac

if [[ $(id -u) -ne 0 ]]; then
  echo "bench/peers.sh installs Debian packages and must run as root" >&2
  exit 1
fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "peers: installing ${missing[*]}"
  apt-get update
  # Another process may hold the dpkg lock for a while.
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends -o DPkg::Lock::Timeout=900 "${PACKAGES[@]}"
fi
command -v curl >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
  -o DPkg::Lock::Timeout=900 curl

echo "peers: $(dpkg-query -W -f='${Package} ${Version}\n' qgis-server cgi-mapserver lighttpd postgresql-15-postgis-3 | tr '\n' ';')"

# lighttpd serving one FastCGI program on 127.0.0.1:<port>, with the program's environment (lines `"NAME" => "value"`).
lighttpd_conf() {
  local name=$1 port=$2 program=$3 environment=$4
  cat >"$DIR/lighttpd-$name.conf" <<EOF
server.modules = ("mod_fastcgi")
server.bind = "127.0.0.1"
server.port = $port
server.document-root = "$DIR/www"
server.pid-file = "$DIR/run/lighttpd-$name.pid"
server.errorlog = "$DIR/run/lighttpd-$name.error.log"
server.username = "www-data"
server.groupname = "www-data"
server.max-keep-alive-requests = 100000
fastcgi.server = ("/" => ((
  "socket" => "$DIR/run/$name.sock",
  "bin-path" => "$program",
  "check-local" => "disable",
  "fix-root-scriptname" => "enable",
  "min-procs" => $PROCS,
  "max-procs" => $PROCS,
  "bin-environment" => (
$environment
  )
)))
EOF
}

stop
mkdir -p "$DIR/www" "$DIR/qgis-home" "$DIR/run"
chown www-data:www-data "$DIR/qgis-home" "$DIR/run"

# --- QGIS Server: a project with one PostGIS layer, published through WFS (and so OGC API Features, /wfs3) -------
# The layer's key is fid, the position in the service's order (newest event first), its primary key.
# estimatedmetadata=false: QGIS counts exactly (once per process; it keeps the count), as the service always does,
# instead of answering numberMatched from the planner's estimate.
cat >"$DIR/peers.qgs" <<EOF
<!DOCTYPE qgis PUBLIC 'http://mrcc.com/qgis.dtd' 'SYSTEM'>
<qgis projectname="lpqs-peers" version="3.22.16-Białowieża">
  <homePath path=""/>
  <title>lpqs-peers</title>
  <projectCrs>
    <spatialrefsys><authid>EPSG:4326</authid></spatialrefsys>
  </projectCrs>
  <layer-tree-group>
    <customproperties/>
    <layer-tree-layer id="peer_proofs" name="peer_proofs" providerKey="postgres" checked="Qt::Checked" expanded="1">
      <customproperties/>
    </layer-tree-layer>
  </layer-tree-group>
  <projectlayers>
    <maplayer type="vector" geometry="Point" wkbType="Point" readOnly="1">
      <extent><xmin>-180</xmin><ymin>-90</ymin><xmax>180</xmax><ymax>90</ymax></extent>
      <id>peer_proofs</id>
      <datasource>dbname='$DB' host=127.0.0.1 port=5432 user='postgres' sslmode=disable key='fid' estimatedmetadata=false srid=4326 type=Point checkPrimaryKeyUnicity='0' table="public"."peer_proofs" (geom)</datasource>
      <layername>peer_proofs</layername>
      <srs><spatialrefsys><authid>EPSG:4326</authid></spatialrefsys></srs>
      <provider encoding="UTF-8">postgres</provider>
    </maplayer>
  </projectlayers>
  <properties>
    <WFSLayers type="QStringList"><value>peer_proofs</value></WFSLayers>
    <WFSLayersPrecision><peer_proofs type="int">8</peer_proofs></WFSLayersPrecision>
    <WMSServiceTitle type="QString">lpqs-peers</WMSServiceTitle>
    <WMSServiceCapabilities type="bool">true</WMSServiceCapabilities>
  </properties>
</qgis>
EOF

lighttpd_conf qgis $QGIS_PORT /usr/lib/cgi-bin/qgis_mapserv.fcgi "$(cat <<EOF
    "QGIS_PROJECT_FILE" => "$DIR/peers.qgs",
    "QGIS_SERVER_LOG_LEVEL" => "2",
    "QGIS_SERVER_LOG_STDERR" => "1",
    "QGIS_SERVER_PARALLEL_RENDERING" => "0",
    "QGIS_OPTIONS_PATH" => "$DIR/qgis-home",
    "QGIS_AUTH_DB_DIR_PATH" => "$DIR/qgis-home",
    "HOME" => "$DIR/qgis-home",
    "QT_QPA_PLATFORM" => "offscreen",
    "XDG_RUNTIME_DIR" => "$DIR/qgis-home"
EOF
)"

# --- MapServer 8: its config file maps /peers to the mapfile; OGC API Features on for the one layer --------------
cat >"$DIR/mapserver.conf" <<EOF
CONFIG
  ENV
    MS_ERRORFILE "$DIR/run/mapserver.error.log"
  END
  MAPS
    "peers" "$DIR/peers.map"
  END
END
EOF

# CLOSE_CONNECTION=DEFER keeps the PostgreSQL connection open between requests of the FastCGI process (QGIS keeps
# its own; the service keeps a pool), so no peer pays a connection per request.
cat >"$DIR/peers.map" <<EOF
MAP
  NAME "peers"
  EXTENT -180 -90 180 90
  SIZE 256 256
  PROJECTION
    "init=epsg:4326"
  END
  WEB
    METADATA
      "ows_title" "lpqs-peers"
      "ows_enable_request" "*"
      "ows_srs" "EPSG:4326"
      "oga_onlineresource" "http://127.0.0.1:$MAPSERVER_PORT/peers/ogcapi"
      "oga_max_limit" "10000"
    END
  END
  LAYER
    NAME "peer_proofs"
    TYPE POINT
    STATUS ON
    CONNECTIONTYPE POSTGIS
    CONNECTION "host=127.0.0.1 port=5432 dbname=$DB user=postgres"
    DATA "geom from peer_proofs using unique fid using srid=4326"
    PROCESSING "CLOSE_CONNECTION=DEFER"
    TEMPLATE "ogcapi"
    EXTENT -180 -90 180 90
    PROJECTION
      "init=epsg:4326"
    END
    METADATA
      "ows_title" "peer_proofs"
      "ows_extent" "-180 -90 180 90"
      "gml_include_items" "all"
      "gml_featureid" "fid"
      "gml_types" "auto"
    END
  END
END
EOF

lighttpd_conf mapserver $MAPSERVER_PORT /usr/lib/cgi-bin/mapserv "$(cat <<EOF
    "MAPSERVER_CONFIG_FILE" => "$DIR/mapserver.conf"
EOF
)"

chmod -R a+rX "$DIR"
start
