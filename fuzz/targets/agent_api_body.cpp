// The body of a POST to the agent's API (/v1/kill/plan, /v1/kill/execute, /v1/reset/...,
// /v1/guard/test), read as the agent reads it: the bounded JSON parser, then the
// engine's request reader (engine/request_codec.hpp, from the request tables every
// door shares).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/guard_test.hpp"
#include "engine/kill.hpp"
#include "engine/request_codec.hpp"
#include "engine/reset.hpp"
#include "model/bounded_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto body = gpukill::parse_json_bounded(text, {.max_bytes = 64 * 1024});
    if (!body || !body->is_object()) return 0;
    using namespace gpukill::engine;
    (void)request_from_json<KillRequest>(*body);
    (void)request_from_json<ResetRequest>(*body);
    (void)request_from_json<GuardTestRequest>(*body);
    return 0;
}
