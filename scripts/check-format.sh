#!/usr/bin/env bash
# Fails when a C++ file differs from clang-format's output (.clang-format).
set -euo pipefail
cd "$(dirname "$0")/.."
files=$(git ls-files '*.cpp' '*.hpp' '*.h' '*.c' 2>/dev/null || true)
[[ -n "$files" ]] || exit 0
bad=()
for file in $files; do
  [[ -f "$file" ]] || continue
  if ! clang-format --dry-run --Werror "$file" >/dev/null 2>&1; then bad+=("$file"); fi
done
if ((${#bad[@]})); then
  echo "clang-format: these files need formatting (clang-format -i FILE):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
