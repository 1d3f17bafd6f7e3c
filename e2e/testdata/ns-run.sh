#!/usr/bin/env bash
# Runs an HTTP MCP server and a client command inside a private network namespace with
# only loopback (the server binds every interface, so it must not run in the host's
# namespace). Usage: ns-run.sh PORT 'server command' client args...
# The server runs in a session of its own; whatever way this script ends (the client's
# exit, TERM, INT, HUP), the server's whole process group is stopped, TERM then KILL.
set -eu
port=$1 server=$2
shift 2
ip link set lo up
setsid sh -c "$server" >/dev/null 2>&1 &
spid=$!
stop_server() {
  kill -TERM -- "-$spid" 2>/dev/null || true
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    kill -0 -- "-$spid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL -- "-$spid" 2>/dev/null || true
}
trap stop_server EXIT
trap 'exit 143' TERM INT HUP
i=0
until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
  i=$((i + 1))
  if [ $i -gt 200 ]; then echo "ns-run: server did not listen on $port" >&2; exit 99; fi
  sleep 0.05
done
set +e
"$@"
exit $?
