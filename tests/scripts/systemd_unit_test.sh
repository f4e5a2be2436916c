#!/usr/bin/env bash
# deploy/systemd/gpukill-agent.service passes `systemd-analyze verify` (unknown keys,
# bad values, a missing executable), with ExecStart pointed at the built gpukill.
# Usage: systemd_unit_test.sh REPO GPUKILL. Exit 77 (skipped) without systemd-analyze.
set -uo pipefail
repo=$1 gpukill=$2
if ! command -v systemd-analyze >/dev/null; then
  echo "SKIPPED: systemd-analyze is not installed"
  exit 77
fi
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
sed "s|/usr/bin/gpukill|$gpukill|" "$repo/deploy/systemd/gpukill-agent.service" >"$dir/gpukill-agent.service"
# --man=no: the man page is installed by the package, not in this build tree.
if ! out=$(systemd-analyze verify --man=no "$dir/gpukill-agent.service" 2>&1) || [[ -n "$out" ]]; then
  echo "FAIL: systemd-analyze verify: $out"
  exit 1
fi
echo "gpukill-agent.service verifies"
