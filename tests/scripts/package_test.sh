#!/usr/bin/env bash
# The Debian package as a user gets it: `cpack -G DEB` from the build, unpacked into a
# scratch root with dpkg-deb -x (no change to this machine), then the installed
# gpukill runs: --version, `list --json` against a simulated host, `mcp` (handed to
# gpukill-interfaces in /usr/libexec/gpukill), its man pages are
# there and render, its declared dependencies name the shared libraries (and not those
# linked in: fmt, yaml-cpp, RE2, SQLite; gpukill itself loads libc and libm alone), and its bash
# completion completes commands, options, GPU indices and holder PIDs (compgen, as bash
# does on Tab).
# The package is stripped (debug information in its dbgsym package), ships deploy/
# under /usr/share/gpukill and the systemd unit where systemd looks, the user docs, a
# Description without stray lines, and the dependencies the README lists; the
# Containerfile installs exactly this package.
# Usage: package_test.sh BUILD_DIR
set -uo pipefail
build=$(cd "$1" && pwd)
repo=$(cd "$(dirname "$0")/../.." && pwd)
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

scratch=$(mktemp -d /tmp/gpukill-package-XXXXXX)
workload=
cleanup() {
  [[ -n "$workload" ]] && kill "$workload" 2>/dev/null
  rm -rf "$scratch"
}
trap cleanup EXIT

(cd "$build" && cpack -G DEB -B "$scratch/out" >"$scratch/cpack.log" 2>&1) ||
  { cat "$scratch/cpack.log"; echo "FAIL: cpack"; exit 1; }
version=$(sed -nE 's/^set\(CPACK_PACKAGE_VERSION "([^"]+)"\)/\1/p' "$build/CPackConfig.cmake")
deb="$scratch/out/gpukill_${version}_amd64.deb"
[[ -f "$deb" ]] || { ls "$scratch/out"; echo "FAIL: no $deb"; exit 1; }

depends=$(dpkg-deb -f "$deb" Depends)
# libssl3 for the agent's, MCP's and the fleet's HTTP (gpukill's own, over OpenSSL).
for library in libc6 libstdc++6 libssl3 libsystemd0; do
  [[ "$depends" == *"$library"* ]] || fail "Depends lacks $library: $depends"
done
# fmt, yaml-cpp, RE2 and SQLite are linked into the programs by default
# (cmake/StaticDeps.cmake), and then are no dependency; with GPUKILL_STATIC_DEPS=OFF they are.
cached() { sed -nE "s/^$1:BOOL=(.*)/\1/p" "$build/CMakeCache.txt"; }
static_deps=$(cached GPUKILL_STATIC_DEPS)
for library in libfmt9 libyaml-cpp0.7 libre2-9 libsqlite3-0; do
  if [[ "$static_deps" == ON ]]; then
    [[ "$depends" == *"$library"* ]] && fail "Depends names $library, linked in: $depends"
  else
    [[ "$depends" == *"$library"* ]] || fail "Depends lacks $library: $depends"
  fi
done
# cpp-httplib is a test peer only; nothing installed links it.
[[ "$depends" == *"libcpp-httplib"* ]] && fail "Depends names cpp-httplib: $depends"
# The README's list is the control file's, name for name.
# (A sanitizer build also depends on its runtimes, libasan8 and libubsan1: not listed.)
declared=$(tr ',|' '\n\n' <<<"$depends" | sed -E 's/\(.*\)//; s/^ +//; s/ +$//' | grep . |
  grep -vE '^lib(asan|ubsan|tsan|lsan)[0-9]+$' | sort -u)
listed=$(grep -m1 '^Runtime dependencies' "$repo/README.md" | grep -o '`[^`]*`' | tr -d '`' | sort -u)
[[ "$declared" == "$listed" ]] ||
  fail "README's runtime dependencies differ from the package's Depends: $(diff <(echo "$listed") <(echo "$declared") | grep '^[<>]' | tr '\n' ' ')"
description=$(dpkg-deb -f "$deb" Description)
grep -qE '^ *;|;$' <<<"$description" && fail "stray ';' in the Description: $description"
[[ "$description" == *"finds miners."* && "$description" == *"/usr/share/gpukill"* ]] ||
  fail "Description: $description"
# Stripped, the debug information split into the dbgsym package by build id.
ddeb="$scratch/out/gpukill-dbgsym_${version}_amd64.ddeb"
[[ -f "$ddeb" ]] || fail "no $(basename "$ddeb"): $(ls "$scratch/out")"
debug_files=$(dpkg-deb -c "$ddeb" 2>/dev/null)  # read whole: grep -q would cut the pipe
grep -qE '/usr/lib/debug/\.build-id/.+\.debug$' <<<"$debug_files" ||
  fail "the dbgsym package holds no .debug files"
echo "sizes: $(basename "$deb") $(stat -c %s "$deb") bytes, installed $(dpkg-deb -f "$deb" Installed-Size) KiB;" \
  "$(basename "$ddeb") $(stat -c %s "$ddeb") bytes"

root="$scratch/root"
dpkg-deb -x "$deb" "$root" || { echo "FAIL: dpkg-deb -x"; exit 1; }
# What every one-shot command pays the dynamic loader for: libc and libm alone, where
# libstdc++ is linked in too (not under the sanitizers).
if [[ "$static_deps" == ON && "$(cached GPUKILL_SANITIZE)" != ON ]]; then
  needed=$(readelf -d "$root/usr/bin/gpukill" | sed -nE 's/.*Shared library: \[(.*)\]/\1/p' |
    sort | tr '\n' ' ')
  [[ "$needed" == "ld-linux-x86-64.so.2 libc.so.6 libm.so.6 " ]] ||
    fail "/usr/bin/gpukill loads more than the loader, libc and libm: $needed"
fi
gpukill="$root/usr/bin/gpukill"
[[ -x "$gpukill" ]] || fail "no /usr/bin/gpukill in the package"
interfaces="$root/usr/libexec/gpukill/gpukill-interfaces"
[[ -x "$interfaces" ]] || fail "no /usr/libexec/gpukill/gpukill-interfaces in the package"
# What every list, kill and check loads: none of the libraries of the interface commands
# (src/cli/interface_commands.hpp; their loading was half of gpukill's start-up).
needed=$(readelf -d "$gpukill" | sed -nE 's/.*Shared library: \[(.*)\]/\1/p' | tr '\n' ' ')
for library in libcpp-httplib libssl libcrypto libsystemd libncurses; do
  [[ "$needed" == *"$library"* ]] && fail "/usr/bin/gpukill loads $library: $needed"
done
for page in gpukill gpukill-list gpukill-kill gpukill-reset gpukill-audit gpukill-guard \
            gpukill-doctor gpukill-check gpukill-agent gpukill-top; do
  file="$root/usr/share/man/man1/$page.1"
  if [[ ! -f "$file" && ! -f "$file.gz" ]]; then fail "no man page $page"; continue; fi
  [[ -f "$file.gz" ]] && file="$file.gz"
  rendered=$(MANWIDTH=80 man -l "$file" 2>/dev/null)
  [[ "$rendered" == *NAME* ]] || fail "man $page does not render"
done
[[ -f "$root/usr/share/doc/gpukill/examples/guard.yaml" ]] || fail "no example guard.yaml"
for program in "$gpukill" "$interfaces"; do
  readelf -S --wide "$program" | grep -q '\.debug_info' && fail "$program carries debug information"
done
for doc in README.md AGENT.md API.md AUDIT.md DEPLOY.md FLEET.md GUARD.md HARDWARE.md JSON.md \
           MCP.md METRICS.md PATTERNS.md ROGUE.md TOP.md; do
  [[ -f "$root/usr/share/doc/gpukill/$doc" ]] || fail "no /usr/share/doc/gpukill/$doc"
done
# deploy/ as shipped, under /usr/share/gpukill; the unit also where systemd looks.
for file in kubernetes/gpukill-agent.yaml container/Containerfile \
            node-problem-detector/gpukill-check.json prometheus/gpukill-alerts.yaml \
            grafana/gpukill-dashboard.json systemd/gpukill-agent.service \
            slurm/gpukill-epilog.sh slurm/gpukill-prolog.sh; do
  cmp -s "$repo/deploy/$file" "$root/usr/share/gpukill/$file" || fail "/usr/share/gpukill/$file"
done
for script in "$root"/usr/share/gpukill/slurm/*.sh; do
  [[ -x "$script" ]] || fail "$script is not executable"
done
unit="$root/usr/lib/systemd/system/gpukill-agent.service"
cmp -s "$repo/deploy/systemd/gpukill-agent.service" "$unit" || fail "no $unit"
if command -v systemd-analyze >/dev/null; then
  systemd-analyze --system unit-paths | grep -qx /usr/lib/systemd/system ||
    fail "systemd does not look in /usr/lib/systemd/system"
fi
# The Containerfile copies and installs this package, and runs its gpukill; the
# DaemonSet names the image by the package's version.
containerfile="$repo/deploy/container/Containerfile"
pattern=$(sed -nE 's/^COPY ([^ ]+) .*/\1/p' "$containerfile")
# shellcheck disable=SC2053  # the pattern is meant to match
[[ -n "$pattern" && $(basename "$deb") == $pattern ]] || fail "Containerfile COPY $pattern"
grep -qE '^FROM .*debian:bookworm' "$containerfile" || fail "the image is not Debian 12"
grep -F "/tmp/$pattern" "$containerfile" | grep -q 'apt-get install' ||
  fail "the image does not install it"
grep -qx 'ENTRYPOINT \["/usr/bin/gpukill"\]' "$containerfile" || fail "ENTRYPOINT"
grep -q "image: gpukill:$version" "$repo/deploy/kubernetes/gpukill-agent.yaml" ||
  fail "the DaemonSet's image is not gpukill:$version"
if command -v apt-get >/dev/null && ((EUID == 0)); then
  # As the image's `apt-get install` resolves it (simulated: nothing changes here).
  simulated=$(apt-get install --simulate --no-install-recommends "$deb" 2>&1) ||
    fail "apt-get cannot install the package: $simulated"
fi
completion="$root/usr/share/bash-completion/completions/gpukill"
[[ -f "$completion" ]] || fail "no bash completion"
[[ -f "$root/usr/share/zsh/vendor-completions/_gpukill" ]] || fail "no zsh completion"

shown=$("$gpukill" --version)
[[ "$shown" =~ ^gpukill\ $version\ \(commit\  ]] || fail "--version: $shown"

# The installed binary against a simulated host (gpusim and its driver from the build:
# test tools, not in the package).
sim="$scratch/sim"
"$build/bin/gpusim" init --root "$sim" >/dev/null || fail "gpusim init"
eval "$("$build/bin/gpusim" env --root "$sim")"
export GPUKILL_STATE_DIR="$scratch/state" GPUKILL_CONFIG_DIR="$scratch/config"
ready=$("$build/bin/gpusim" run --root "$sim" --gpu 1 --mem 1G --name trainer --background)
workload=$(sed -nE 's/.*"pid":([0-9]+).*/\1/p' <<<"$ready")
[[ -n "$workload" ]] || fail "no workload: $ready"
listed=$("$gpukill" list --json)
jq -e --argjson pid "$workload" '(.gpus | length) == 2 and any(.processes[]; .pid == $pid)' \
  >/dev/null <<<"$listed" || fail "installed gpukill list does not show the workload $workload"
# An interface command through the installed gpukill: handed to gpukill-interfaces.
initialize='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"package-test","version":"1"}}}'
answer=$(printf '%s\n' "$initialize" | timeout 30 "$gpukill" mcp 2>/dev/null)
jq -e '.id == 1 and .result.serverInfo.name == "gpukill"' >/dev/null <<<"$answer" ||
  fail "installed gpukill mcp did not answer initialize: $answer"
missing=$("$gpukill" guard test 2>&1 >/dev/null)
[[ "$missing" == *"usr/share/doc/gpukill/examples/guard.yaml"* ]] ||
  fail "the missing-policy hint does not name the installed example: $missing"

# Bash completion, as Tab would run it: the installed gpukill first on PATH. Its words
# are captured before grep reads them: `grep -q` in a pipeline exits at the first match,
# and the writer's SIGPIPE would fail the pipeline under pipefail.
offers() {  # offers WORD COMMAND-LINE...: the completion offers exactly WORD among others
  local word=$1 offered
  shift
  offered=$(completions "$@")
  grep -qx -- "$word" <<<"$offered"
}
completions() {
  PATH="$root/usr/bin:$PATH" bash -c '
    source "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
    _gpukill
    printf "%s\n" "${COMPREPLY[@]}"' _ "$completion" "$@"
}
registered=$(PATH="$root/usr/bin:$PATH" bash -c "source '$completion'; complete -p gpukill")
[[ "$registered" == *"complete -F _gpukill gpukill"* ]] || fail "complete -p gpukill: $registered"
[[ "$(completions gpukill li)" == "list" ]] || fail "gpukill li<Tab>: $(completions gpukill li)"
offers --details gpukill list --de || fail "list --de<Tab>"
offers --force gpukill kill --for || fail "kill --for<Tab>"
[[ "$(completions gpukill list --gpu '' | tr '\n' ' ')" == "0 1 " ]] ||
  fail "list --gpu <Tab>: $(completions gpukill list --gpu '')"
offers "$workload" gpukill kill '' || fail "kill <Tab> lacks holder $workload"
offers amd gpukill list --vendor a || fail "--vendor a<Tab>"
offers init gpukill guard '' || fail "guard <Tab>"
offers --orphaned gpukill list --or || fail "list lacks the selector --orphaned it takes"
offers --batch gpukill list --ba && fail "list offers kill's --batch"

if ((failures > 0)); then echo "$failures failure(s)"; exit 1; fi
echo "package test passed: $(basename "$deb")"
