#!/usr/bin/env bash
# The generated man pages pass mandoc's lint (a dated .TH, no macro mistakes), the fleet's
# options have a page, and the bash completion passes shellcheck (no shadowed pattern,
# no word-split command substitution). Skipped (77), visibly, without mandoc or
# shellcheck (scripts/setup.sh installs both).
# Usage: docs_lint_test.sh BUILD_DIR
set -uo pipefail
share="$1/share"
for tool in mandoc shellcheck; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed (scripts/setup.sh)"; exit 77; }
done
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

pages=("$share"/man/man1/*.1)
[[ -f "$share/man/man1/gpukill-fleet.1" ]] || fail "no gpukill-fleet.1 for the fleet's options"
((${#pages[@]} >= 12)) || fail "only ${#pages[@]} man pages in $share/man/man1"
for page in "${pages[@]}"; do
  # Warnings and worse (a missing date, a bad macro): a page must be silent. Style
  # notes (source lines over 80 bytes) are not counted: the generator writes one
  # paragraph a line.
  lint=$(mandoc -Tlint -W warning "$page" 2>&1)
  [[ -z "$lint" ]] || fail "$(basename "$page"): $lint"
done

completion="$share/bash-completion/completions/gpukill"
if [[ ! -f "$completion" ]]; then
  fail "no bash completion at $completion"
else
  lint=$(shellcheck -s bash "$completion" 2>&1) || fail "shellcheck $completion: $lint"
fi

if ((failures > 0)); then echo "$failures failed"; exit 1; fi
echo "man pages and bash completion lint clean: ${#pages[@]} pages"
