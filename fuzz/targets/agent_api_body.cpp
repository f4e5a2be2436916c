// The body of a POST to the agent's API (/v1/kill/plan, /v1/kill/execute, /v1/reset/...),
// read as the agent reads it: the bounded JSON parser, then the engine's request
// readers (engine/request_json.hpp) that every door shares.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/request_json.hpp"
#include "model/bounded_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto body = gpukill::parse_json_bounded(text, {.max_bytes = 64 * 1024});
    if (!body || !body->is_object()) return 0;
    (void)gpukill::engine::kill_request_from_json(*body);
    (void)gpukill::engine::reset_request_from_json(*body);
    return 0;
}
