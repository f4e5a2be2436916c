#include "model/bounded_json.hpp"

#include <fmt/format.h>

namespace gpukill {
namespace {

template <class Json>
JsonResult<Json> parse_bounded(std::string_view text, const JsonBounds& bounds) {
    if (text.size() > bounds.max_bytes) {
        return std::unexpected(JsonRefusal{
            JsonRefusal::Kind::too_large,
            fmt::format("{} bytes, over the limit of {}", text.size(), bounds.max_bytes),
            bounds.max_bytes});
    }
    std::size_t deep_at = 0;
    if (json_nesting_depth(text, bounds.max_depth, &deep_at) > bounds.max_depth) {
        return std::unexpected(
            JsonRefusal{JsonRefusal::Kind::too_deep,
                        fmt::format("nested deeper than {} levels", bounds.max_depth), deep_at});
    }
    try {
        return Json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        // e.what() is "[json.exception.parse_error.101] parse error at line 1, column 2:
        // syntax error while parsing value - ..."; the part after the id is kept.
        std::string_view message = e.what();
        if (const std::size_t id_end = message.find("] "); id_end != std::string_view::npos) {
            message.remove_prefix(id_end + 2);
        }
        return std::unexpected(JsonRefusal{JsonRefusal::Kind::invalid,
                                           fmt::format("not valid JSON: {}", message),
                                           e.byte == 0 ? 0 : e.byte - 1});
    } catch (const nlohmann::json::exception& e) {
        // Out-of-range numbers and the like: refused as invalid, never thrown on.
        return std::unexpected(JsonRefusal{JsonRefusal::Kind::invalid,
                                           fmt::format("not valid JSON: {}", e.what()), 0});
    }
}

}  // namespace

std::size_t json_nesting_depth(std::string_view text, std::size_t limit, std::size_t* at) {
    std::size_t depth = 0;
    std::size_t deepest = 0;
    bool in_string = false;
    bool escaped = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (escaped) {
                escaped = false;
            } else if (c == '\\') {
                escaped = true;
            } else if (c == '"') {
                in_string = false;
            }
            continue;
        }
        switch (c) {
            case '"':
                in_string = true;
                break;
            case '[':
            case '{':
                if (++depth > deepest) {
                    deepest = depth;
                    if (deepest > limit) {
                        if (at != nullptr) *at = i;
                        return deepest;
                    }
                }
                break;
            case ']':
            case '}':
                if (depth > 0) --depth;
                break;
            default:
                break;
        }
    }
    return deepest;
}

JsonResult<nlohmann::json> parse_json_bounded(std::string_view text, const JsonBounds& bounds) {
    return parse_bounded<nlohmann::json>(text, bounds);
}

JsonResult<nlohmann::ordered_json> parse_ordered_json_bounded(std::string_view text,
                                                              const JsonBounds& bounds) {
    return parse_bounded<nlohmann::ordered_json>(text, bounds);
}

}  // namespace gpukill
