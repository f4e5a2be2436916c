// The one way gpukill parses JSON that comes from outside: MCP messages, the agent's
// request bodies, the fleet's replies from other hosts, saved snapshots (`guard test
// --snapshot`) and file_sd inventories.
//
// Why not nlohmann::json::parse alone: its parser keeps its own stack, but the document
// it builds is a tree that nlohmann copies, compares and writes out recursively, so 150,000
// nested `[` (300 KB, under every size limit) overflowed the stack of the MCP server and
// of the fleet controller. Here the text is bounded in size, then scanned once for its
// nesting (brackets outside strings) before nlohmann builds anything, so a document
// deeper than the limit is refused in O(1) memory. Valid documents of gpukill's own
// formats nest fewer than 10 levels.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "model/result.hpp"

namespace gpukill {

inline constexpr std::size_t kMaxJsonDepth = 64;

struct JsonBounds {
    std::size_t max_bytes = 0;  // the text's length
    std::size_t max_depth = kMaxJsonDepth;
};

// Where a refused text went wrong: `byte` is the offset (0-based) of the first byte
// past the size limit, of the bracket one level too deep, or where nlohmann stopped.
struct JsonRefusal {
    enum class Kind { too_large, too_deep, invalid };
    Kind kind = Kind::invalid;
    std::string what;  // one line: "nested deeper than 64 levels", "not valid JSON: ..."
    std::size_t byte = 0;
};

template <class Json>
using JsonResult = std::expected<Json, JsonRefusal>;

// The document `text` holds, or why it is refused (over max_bytes, nested deeper than
// max_depth, or not JSON). Never throws.
JsonResult<nlohmann::json> parse_json_bounded(std::string_view text, const JsonBounds& bounds);
JsonResult<nlohmann::ordered_json> parse_ordered_json_bounded(std::string_view text,
                                                              const JsonBounds& bounds);

// The depth of the deepest array or object in `text` (0 for a scalar), counting
// brackets outside strings; stops, returning a value over `limit`, at the first bracket
// past it (whose offset goes to `at`). Text that is not JSON gives some number; only
// valid JSON is measured exactly, and nlohmann refuses the rest afterwards.
std::size_t json_nesting_depth(std::string_view text, std::size_t limit, std::size_t* at = nullptr);

}  // namespace gpukill
