// What a host answered (a remote gpukill's stdout over SSH, an agent's HTTP body), read
// as untrusted input: parsed bounded in size and nesting (model/bounded_json.hpp), then
// checked for the shape the fleet and its renderers rely on, so that a hostile or
// broken host ({"preview": "yes"}, {"error": {"message": 5}}, 150,000 nested brackets)
// is that host's error in the report, never the end of the fleet command.
#pragma once

#include <expected>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace gpukill::fleet {

// The largest single-host document read, over SSH or from an agent.
inline constexpr std::size_t kMaxReplyDocumentBytes = 16u << 20;

// The document `text` holds: null for empty text; why it is refused otherwise (over the
// size limit, nested too deep, not JSON).
std::expected<nlohmann::ordered_json, std::string> read_reply_document(std::string_view text);

// Why `document` does not have the shape of a gpukill document, if it does not: a field
// the fleet reads (exit_code, preview, executed, plan_id, version, verdict, findings,
// error.message, error.category, targets[], gpus[].released, gpus[]'s byte counts)
// present with another type, or an exit code outside 0..255. One line, naming the field.
std::optional<std::string> reply_shape_problem(const nlohmann::ordered_json& document);

}  // namespace gpukill::fleet
