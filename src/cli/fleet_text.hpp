// A host's section of a fleet command's text output, written from its JSON document
// (never from a remote table), reading as the same command's text on one host: a listing
// as `gpukill list` draws it, a kill as one row per target and one line per GPU with the
// memory verified back, a reset as its plan and outcome, audit's history, actions and
// rogue scan as their tables, guard test as its decisions, a check as its summary line.
// Only a document it does not know is shown as JSON. A host that failed shows its error.
#pragma once

#include <string>

#include "cli/command_id.hpp"
#include "cli/text_wrap.hpp"
#include "fleet/fleet_run.hpp"

namespace gpukill::cli {

struct CommandLine;

std::string fleet_host_text(Command command, const CommandLine& cl, const fleet::HostResult& host,
                            OutputWidth width);

// The kill document (plan or outcome) of one host, as text. Pure.
std::string fleet_kill_text(const nlohmann::ordered_json& document);

// The reset document (plan or outcome) of one host, as `gpukill reset` says it. Pure.
std::string fleet_reset_text(const nlohmann::ordered_json& document,
                             OutputWidth width = std::nullopt);

}  // namespace gpukill::cli
