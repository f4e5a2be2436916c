// An audit document (docs/JSON.md: `audit --json`, `--audit-summary --json`,
// `--actions --json`, `--rogue --json`) as the text `gpukill audit` prints for it on one
// host: how a fleet host's answer reads. The document is read back into what the
// single-host tables are drawn from, and drawn by the same functions, so both read
// alike. Pure; a field missing or of the wrong type reads as unknown.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/text_wrap.hpp"

namespace gpukill::cli {

// Empty for a document it does not know (another kind, a newer schema).
std::optional<std::string> audit_document_text(const nlohmann::ordered_json& doc,
                                               OutputWidth width);

}  // namespace gpukill::cli
