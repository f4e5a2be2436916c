#include "fleet/reply_document.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "model/bounded_json.hpp"

namespace gpukill::fleet {
namespace {

using Json = nlohmann::ordered_json;

// `field` of `object` is absent or passes `check`.
template <class Check>
bool absent_or(const Json& object, const char* field, Check check) {
    const auto it = object.find(field);
    return it == object.end() || check(*it);
}

bool is_bool(const Json& value) {
    return value.is_boolean();
}
bool is_string(const Json& value) {
    return value.is_string();
}
bool is_byte_count(const Json& value) {
    return value.is_number_unsigned() || value.is_null();
}
bool is_string_or_null(const Json& value) {
    return value.is_string() || value.is_null();
}

}  // namespace

std::expected<Json, std::string> read_reply_document(std::string_view text) {
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return Json();
    auto parsed = parse_ordered_json_bounded(text, JsonBounds{.max_bytes = kMaxReplyDocumentBytes});
    if (!parsed) return std::unexpected(parsed.error().what);
    return std::move(*parsed);
}

std::optional<std::string> reply_shape_problem(const Json& document) {
    if (!document.is_object()) return "not a JSON object";
    if (!absent_or(document, "exit_code", [](const Json& v) {
            return v.is_number_integer() && v.get<std::int64_t>() >= 0 &&
                   v.get<std::int64_t>() <= 255;
        })) {
        return "exit_code is not a number from 0 to 255";
    }
    for (const char* field : {"preview", "executed"}) {
        if (!absent_or(document, field, is_bool))
            return fmt::format("{} is not true or false", field);
    }
    for (const char* field : {"plan_id", "version", "verdict"}) {
        if (!absent_or(document, field, is_string)) return fmt::format("{} is not a string", field);
    }
    if (!absent_or(document, "findings", [](const Json& v) { return v.is_array(); })) {
        return "findings is not an array";
    }
    if (const auto error = document.find("error"); error != document.end()) {
        if (!error->is_object()) return "error is not an object";
        if (!absent_or(*error, "message", is_string)) return "error.message is not a string";
        if (!absent_or(*error, "category", is_string_or_null))
            return "error.category is not a string";
    }
    if (const auto targets = document.find("targets"); targets != document.end()) {
        if (!targets->is_array() && !targets->is_null()) return "targets is not an array";
        for (const Json& target : *targets) {
            if (!target.is_object()) return "a target is not an object";
            if (!absent_or(target, "memory_bytes",
                           [](const Json& v) { return v.is_object() || v.is_null(); })) {
                return "a target's memory_bytes is not an object";
            }
        }
    }
    if (const auto gpus = document.find("gpus"); gpus != document.end()) {
        if (!gpus->is_array() && !gpus->is_null()) return "gpus is not an array";
        for (const Json& gpu : *gpus) {
            if (!gpu.is_object()) return "a GPU is not an object";
            if (!absent_or(gpu, "released", is_bool)) {
                return "a GPU's released is not true or false";
            }
            for (const char* field : {"memory_reclaimed_bytes", "memory_expected_release_bytes"}) {
                if (!absent_or(gpu, field, is_byte_count)) {
                    return fmt::format("a GPU's {} is not a byte count", field);
                }
            }
            if (!absent_or(gpu, "seconds_to_release",
                           [](const Json& v) { return v.is_number() || v.is_null(); })) {
                return "a GPU's seconds_to_release is not a number";
            }
        }
    }
    return std::nullopt;
}

}  // namespace gpukill::fleet
