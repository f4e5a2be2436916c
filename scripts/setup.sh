#!/usr/bin/env bash
# Installs what gpukill needs, from Debian 12 packages only. Idempotent: installs
# nothing when everything is present, so it is cheap to run before every build (the
# README's commands and CI do).
#
#   scripts/setup.sh           what building and testing need (scripts/test.sh, CI)
#   scripts/setup.sh --build   what building gpukill and gpusim needs, nothing more
#                              (scripts/demo.sh): no test servers, no Node.js packages
set -euo pipefail

mode=all
case "${1:-}" in
  "") ;;
  --build) mode=build ;;
  *) echo "setup: unknown argument '$1' (use --build, or nothing)" >&2; exit 3 ;;
esac

# Building gpukill, its interfaces and gpusim.
packages=(
  build-essential cmake ninja-build pkg-config
  libcli11-dev nlohmann-json3-dev libyaml-cpp-dev libfmt-dev libsqlite3-dev libre2-dev
  libncurses-dev libssl-dev libcpp-httplib-dev libsystemd-dev
)
# The test suite and its real peers (docs/DESIGN: servers the tests start themselves).
if [[ $mode == all ]]; then
  packages+=(
    clang-format openssl
    prometheus prometheus-node-exporter
    libgtest-dev libgmock-dev libbenchmark-dev
    psmisc procps jq
    tmux
    shellcheck mandoc
    openssh-client openssh-server iproute2 bc
    slurmctld slurm-client munge
    nodejs
  )
fi

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$package")
done
# Debian's nodejs leaves npm to its own package; NodeSource's bundles it (and conflicts
# with Debian's npm), so npm is asked for only when no npm is there.
if [[ $mode == all ]]; then command -v npm >/dev/null || missing+=(npm); fi
if ((${#missing[@]} > 0)); then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 4; }
    sudo_cmd=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -q >&2
  "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi
[[ $mode == all ]] || exit 0

# The MCP tests' Node clients (the official SDK and conformance suite, pinned in
# tests/mcp/package-lock.json), into tests/mcp/node_modules only: test tools, never
# part of gpukill. Installed once; `npm ci` again when the lock file changes.
mcp_tests="$(cd "$(dirname "$0")/.." && pwd)/tests/mcp"
if [[ ! -f "$mcp_tests/node_modules/.package-lock.json" ||
      "$mcp_tests/package-lock.json" -nt "$mcp_tests/node_modules/.package-lock.json" ]]; then
  echo "setup: npm ci in $mcp_tests" >&2
  npm ci --prefix "$mcp_tests" --no-audit --no-fund --loglevel=error >&2
fi
