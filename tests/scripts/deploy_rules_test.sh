#!/usr/bin/env bash
# deploy/prometheus's alert rules pass promtool's own unit tests, and every gpukill_
# metric that the alerts and the Grafana dashboard query is one docs/METRICS.md
# documents (the agent's contract), so a renamed family cannot leave a dead panel.
# Usage: deploy_rules_test.sh REPO. Exit 77 (skipped) without promtool.
set -uo pipefail
repo=$1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

if ! command -v promtool >/dev/null; then
  echo "SKIPPED: promtool is not installed (Debian's prometheus package; scripts/setup.sh)"
  exit 77
fi
(cd "$repo/deploy/prometheus" && promtool check rules gpukill-alerts.yaml && \
  promtool test rules gpukill-alerts.test.yaml) || fail "promtool rejected the alert rules"

jq empty "$repo/deploy/grafana/gpukill-dashboard.json" || fail "the dashboard is not JSON"
used=$( (grep -o 'gpukill_[a-z_]*' "$repo/deploy/prometheus/gpukill-alerts.yaml"; \
  jq -r '.. | .expr? // empty, .query?.query? // empty' "$repo/deploy/grafana/gpukill-dashboard.json" | \
  grep -o 'gpukill_[a-z_]*') | sort -u)
[[ -n "$used" ]] || fail "no gpukill metric found in the rules or the dashboard"
for metric in $used; do
  grep -q "\`$metric\`" "$repo/docs/METRICS.md" || fail "$metric is not in docs/METRICS.md"
done
if ((failures > 0)); then exit 1; fi
echo "alert rules and dashboard: $(wc -w <<<"$used") metric families, all documented"
