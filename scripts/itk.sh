#!/usr/bin/env bash
# Run the A2A interop kit's scenarios (a2aproject/a2a-itk) with an a2a-temporal node (examples/itk)
# beside the kit's Go and Python agents, and print the matrix (scenario x result).
#
# The kit's source is not on any registry and is never copied into this repository:
#   git clone https://github.com/a2aproject/a2a-itk /path/to/a2a-itk
#   scripts/itk.sh /path/to/a2a-itk            # or ITK_DIR=/path/to/a2a-itk scripts/itk.sh
#   scripts/itk.sh /path/to/a2a-itk --only v10-core   # scenarios whose name contains v10-core
#
# Fetches packages only: the Python agents' dependencies from PyPI (a2a-sdk pinned to PyPI's 1.0.3 and
# 0.3.24, where the kit names a git URL), the Go agents' modules from the Go module proxy; the node runs
# from this checkout (npm ci first). Needs python3 >= 3.11, go, node and `ss`. Everything it makes goes
# to ITK_WORK (default .itk/): virtualenvs, agent binaries, logs/, the node's Temporal database, matrix.md.
# It starts only its own processes, on fixed ports from ITK_PORT_BASE (default 19400) to +20, refuses
# to start when one is taken, and stops them by their process group when it ends.
# It is not part of `npm test`: it needs the kit's source.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
ITK_DIR="${ITK_DIR:-}"
if [[ $# -gt 0 && "$1" != -* ]]; then
  ITK_DIR="$1"
  shift
fi
if [[ -z "$ITK_DIR" || ! -f "$ITK_DIR/protos/instruction.proto" ]]; then
  echo "itk.sh: give the kit's checkout (git clone https://github.com/a2aproject/a2a-itk), as \$1 or ITK_DIR" >&2
  exit 2
fi
ITK_DIR="$(cd "$ITK_DIR" && pwd)"
WORK="${ITK_WORK:-$ROOT/.itk}"
BASE="${ITK_PORT_BASE:-19400}"
LOGS="$WORK/logs"
mkdir -p "$WORK/bin" "$LOGS"

# --- Packages: each step once (a stamp file says it is done).
venv() { # venv NAME PACKAGES...: a virtualenv with these packages from PyPI
  local dir="$WORK/$1"
  shift
  [[ -f "$dir/.installed" ]] && return
  echo "itk.sh: installing $* into $dir"
  python3 -m venv "$dir"
  "$dir/bin/pip" install -q "$@"
  touch "$dir/.installed"
}
go_agent() { # go_agent VERSION: the kit's Go agent, modules from the Go module proxy
  [[ -x "$WORK/bin/go_$1" ]] && return
  echo "itk.sh: building the Go $1 agent"
  (cd "$ITK_DIR/agents/go/$1" && go build -o "$WORK/bin/go_$1" .) >"$LOGS/build-go_$1.log" 2>&1 ||
    echo "itk.sh: the Go $1 agent does not build (see $LOGS/build-go_$1.log); its scenarios are left out" >&2
}
# The kit's own runner runs in the v1.0 agent's virtualenv (httpx, httpx-sse, protobuf, fastapi, uvicorn).
venv py-v10 'a2a-sdk[sqlite,grpc,http-server]==1.0.3' fastapi uvicorn grpcio grpcio-tools 'protobuf>=6.31.1' \
  sse-starlette httpx httpx-sse packaging
venv py-v03 'a2a-sdk[grpc,http-server]==0.3.24' httpx fastapi uvicorn grpcio click 'protobuf>=6.31.1'
go_agent v10
go_agent v03

# --- Ports: two per agent (HTTP, gRPC), the node's Temporal dev server and UI, the notification server.
declare -A HTTP=([a2a_temporal]=$BASE [python_v10]=$((BASE + 10)) [go_v10]=$((BASE + 12)) [python_v03]=$((BASE + 14)) [go_v03]=$((BASE + 16)))
TEMPORAL_PORT=$((BASE + 2))
TEMPORAL_UI_PORT=$((BASE + 3))
NOTIFY_PORT=$((BASE + 20))
for port in "${HTTP[@]}" $TEMPORAL_PORT $TEMPORAL_UI_PORT $NOTIFY_PORT; do
  for p in $port $((port + 1)); do
    if ss -ltnH "sport = :$p" | grep -q .; then
      echo "itk.sh: port $p is taken; set ITK_PORT_BASE to a free range (ss -ltn lists those in use)" >&2
      exit 2
    fi
  done
done

# --- Agents: each in a process group of its own, stopped by that group when the script ends.
PGIDS=()
stop_agents() {
  for pgid in "${PGIDS[@]}"; do kill -TERM -- "-$pgid" 2>/dev/null || true; done
  sleep 2
  for pgid in "${PGIDS[@]}"; do kill -KILL -- "-$pgid" 2>/dev/null || true; done
}
trap stop_agents EXIT
start() { # start NAME DIR COMMAND...
  local name=$1 dir=$2
  shift 2
  (cd "$dir" && exec setsid "$@") >"$LOGS/$name.log" 2>&1 &
  PGIDS+=($!)
}
AGENTS=()
# A fresh Temporal database: a last run's unfinished tasks would resume against agents that are gone.
rm -f "$WORK"/temporal.db*
start a2a_temporal "$ROOT" env PORT="${HTTP[a2a_temporal]}" GRPC_PORT=$((HTTP[a2a_temporal] + 1)) \
  TEMPORAL_PORT=$TEMPORAL_PORT TEMPORAL_UI_PORT=$TEMPORAL_UI_PORT A2A_DATA_DB="$WORK/temporal.db" \
  A2A_METRICS_PORT=off A2A_WORKER_METRICS_PORT=off A2A_PUSH_ALLOWED_HOSTS=127.0.0.1 \
  node bin/a2a-temporal.js dev examples/itk/a2a-temporal.config.ts
AGENTS+=(a2a_temporal)
for version in v10 v03; do
  start "python_$version" "$ITK_DIR/agents/python/$version" "$WORK/py-$version/bin/python" main.py \
    --httpPort "${HTTP[python_$version]}" --grpcPort $((HTTP[python_$version] + 1))
  AGENTS+=("python_$version")
  if [[ -x "$WORK/bin/go_$version" ]]; then
    start "go_$version" "$ITK_DIR/agents/go/$version" "$WORK/bin/go_$version" \
      --httpPort "${HTTP[go_$version]}" --grpcPort $((HTTP[go_$version] + 1))
    AGENTS+=("go_$version")
  fi
done

# Ready when each serves its card (the node's dev stack first starts a Temporal dev server).
READY=()
for name in "${AGENTS[@]}"; do
  for _ in $(seq 180); do
    if curl -sf -o /dev/null "http://127.0.0.1:${HTTP[$name]}/.well-known/agent-card.json"; then
      READY+=("$name")
      break
    fi
    sleep 1
  done
  [[ " ${READY[*]} " == *" $name "* ]] || echo "itk.sh: $name did not start (see $LOGS/$name.log); its scenarios are left out" >&2
done

PORTS_JSON="{$(for name in "${READY[@]}"; do printf '"%s":[%s,%s],' "$name" "${HTTP[$name]}" $((HTTP[$name] + 1)); done | sed 's/,$//')}"
echo "itk.sh: agents up: ${READY[*]}; logs in $LOGS"
status=0
ITK_DIR="$ITK_DIR" ITK_AGENTS="$PORTS_JSON" ITK_NOTIFY_PORT=$NOTIFY_PORT ITK_LOGS="$LOGS" \
  "$WORK/py-v10/bin/python" "$ROOT/scripts/itk_scenarios.py" --matrix "$WORK/matrix.md" "$@" \
  >"$LOGS/scenarios.log" 2>&1 || status=$?
grep -E '^(---|\|)' "$LOGS/scenarios.log" || tail -20 "$LOGS/scenarios.log"
echo "itk.sh: the matrix is in $WORK/matrix.md, the kit's log in $LOGS/scenarios.log"
exit $status
