#!/usr/bin/env bash
# Run the official A2A conformance suite (a2aproject/a2a-tck, 1.0 line) against a running agent.
#
# One-time setup (the suite is not on PyPI and must never be committed into this repository):
#   git clone -b 1.0-dev https://github.com/a2aproject/a2a-tck /work/tck-src   # or a 1.0.x tag
#   python3 -m venv /work/tck-src/.venv                                        # Python >= 3.11
#   /work/tck-src/.venv/bin/pip install -e /work/tck-src 'protobuf>=6.30'      # stubs need protobuf >= 6.30
#
# Usage: scripts/tck.sh [SUT_URL] [run_tck.py options...] [-- pytest args...]
#   SUT_URL defaults to http://127.0.0.1:8080/agents/conformance (card at SUT_URL/.well-known/agent-card.json)
#   TCK_DIR env var points at the suite checkout (default /work/tck-src). Reports go to $TCK_DIR/reports/.
# Examples:
#   scripts/tck.sh                                   # everything (MUST failures set a non-zero exit code)
#   scripts/tck.sh "" --level must -v                # only MUST, default URL
#   scripts/tck.sh http://127.0.0.1:8080/agents/conformance --transport jsonrpc -- -k CORE-SEND -x
#   scripts/tck.sh "" -- --webhook-host=127.0.0.1     # push delivery tests need a reachable webhook host
set -euo pipefail

TCK_DIR="${TCK_DIR:-/work/tck-src}"
URL="http://127.0.0.1:8080/agents/conformance"
if [[ $# -gt 0 && "$1" != -* ]]; then
  [[ -n "$1" ]] && URL="$1"
  shift
fi

if [[ ! -x "$TCK_DIR/.venv/bin/python" || ! -f "$TCK_DIR/run_tck.py" ]]; then
  echo "tck.sh: no suite at $TCK_DIR (see setup notes at the top of $0)" >&2
  exit 2
fi

cd "$TCK_DIR"
exec "$TCK_DIR/.venv/bin/python" "$TCK_DIR/run_tck.py" --sut-host "$URL" "$@"
