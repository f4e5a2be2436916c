#!/usr/bin/env bash
# Installs what gpukill needs to build and test, from Debian 12 packages only.
# Idempotent: installs nothing when everything is present, so it is cheap to run
# before every build (the README's commands and CI do).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config clang-format
  libcli11-dev nlohmann-json3-dev libyaml-cpp-dev libfmt-dev libsqlite3-dev
  libncurses-dev libssl-dev libcpp-httplib-dev libsystemd-dev openssl
  prometheus prometheus-node-exporter
  libgtest-dev libgmock-dev libbenchmark-dev
  psmisc procps jq
  tmux
  shellcheck mandoc
  openssh-client openssh-server iproute2 bc
  slurmctld slurm-client munge
  nodejs
)

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$package")
done
# Debian's nodejs leaves npm to its own package; NodeSource's bundles it (and conflicts
# with Debian's npm), so npm is asked for only when no npm is there.
command -v npm >/dev/null || missing+=(npm)
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

# The MCP tests' Node clients (the official SDK and conformance suite, pinned in
# tests/mcp/package-lock.json), into tests/mcp/node_modules only: test tools, never
# part of gpukill. Installed once; `npm ci` again when the lock file changes.
mcp_tests="$(cd "$(dirname "$0")/.." && pwd)/tests/mcp"
if [[ ! -f "$mcp_tests/node_modules/.package-lock.json" ||
      "$mcp_tests/package-lock.json" -nt "$mcp_tests/node_modules/.package-lock.json" ]]; then
  echo "setup: npm ci in $mcp_tests" >&2
  npm ci --prefix "$mcp_tests" --no-audit --no-fund --loglevel=error >&2
fi
