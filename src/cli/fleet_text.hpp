// A host's section of a fleet command's text output, written from its JSON document
// (never from a remote table): a listing as `gpukill list` draws it, a kill as one row
// per target and one line per GPU with the memory verified back, a check as its summary
// line, anything else as its document. A host that failed shows its error.
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

}  // namespace gpukill::cli
