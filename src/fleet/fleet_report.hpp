// What a fleet command shows: one JSON document
// {schema_version, command, transport, hosts: [{host, ok, status, exit_code, error,
// acted, seconds, result}], summary, exit_code}, where `result` is exactly the host's
// single-host document; for people, per-host sections in dshbak's layout, with
// --gather merging hosts whose text is identical under one node range (dshbak -c,
// clush -b), and a summary line naming the hosts that failed. Pure.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fleet/fleet_run.hpp"

namespace gpukill::fleet {

nlohmann::ordered_json fleet_json(const FleetResult& result);

struct HostSection {
    std::string host;
    std::string text;  // what the host's section shows, ending in a newline
};

// ---------------- / node[01-03] / ---------------- / text, one block per distinct
// text when `gather` (hosts folded), else one block per host in the order given.
std::string render_sections(const std::vector<HostSection>& sections, bool gather);

// "fleet list: 32 hosts: 31 succeeded, 0 failed, 1 unreachable (node07)", then the
// reason the act phase did not run, if it did not.
std::string summary_text(const FleetResult& result);

}  // namespace gpukill::fleet
