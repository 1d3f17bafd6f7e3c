#!/usr/bin/env bash
# Runs an HTTP MCP server and a client command inside a private network namespace with
# only loopback (the server binds every interface, so it must not run in the host's
# namespace). Usage: ns-run.sh PORT 'server command' client args...
set -eu
port=$1 server=$2
shift 2
ip link set lo up
sh -c "$server" >/dev/null 2>&1 &
spid=$!
i=0
until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
  i=$((i + 1))
  if [ $i -gt 200 ]; then echo "ns-run: server did not listen on $port" >&2; kill $spid; exit 99; fi
  sleep 0.05
done
set +e
"$@"
rc=$?
kill $spid 2>/dev/null
wait $spid 2>/dev/null
exit $rc
