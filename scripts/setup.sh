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
  openssh-client openssh-server iproute2 bc
)

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$package")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi

echo "setup: installing ${missing[*]}" >&2
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 4; }
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q >&2
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
