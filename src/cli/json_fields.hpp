// Reading fields of a JSON document that another gpukill wrote (a fleet host's answer)
// or this one did, for rendering it as text: a field missing or of another type reads as
// empty or unknown, never as an error or an exception. Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

#include <nlohmann/json.hpp>

namespace gpukill::cli::json_fields {

using Json = nlohmann::ordered_json;

// The field, or null when `object` is no object or has no such key.
inline const Json& field(const Json& object, const char* key) {
    static const Json kNull;
    if (!object.is_object()) return kNull;
    auto found = object.find(key);
    return found == object.end() ? kNull : *found;
}

// A string as it is, an integer in decimal, anything else empty.
inline std::string text(const Json& object, const char* key) {
    const Json& value = field(object, key);
    if (value.is_string()) return value.get<std::string>();
    if (value.is_number_integer()) return std::to_string(value.get<std::int64_t>());
    return "";
}

inline std::optional<std::string> optional_text(const Json& object, const char* key) {
    const Json& value = field(object, key);
    return value.is_string() ? std::optional<std::string>(value.get<std::string>()) : std::nullopt;
}

inline bool flag(const Json& object, const char* key) {
    const Json& value = field(object, key);
    return value.is_boolean() && value.get<bool>();
}

// A number that fits T: an unsigned T takes no negative, an integral T no fraction.
template <class T>
std::optional<T> number(const Json& object, const char* key) {
    const Json& value = field(object, key);
    if (!value.is_number()) return std::nullopt;
    if constexpr (std::is_integral_v<T>) {
        if (value.is_number_float()) return std::nullopt;
        if constexpr (std::is_unsigned_v<T>) {
            if (!value.is_number_unsigned()) return std::nullopt;
        }
    }
    return value.get<T>();
}

template <class T>
T number_or(const Json& object, const char* key, T otherwise) {
    return number<T>(object, key).value_or(otherwise);
}

// The array, or an empty one.
inline const Json& list(const Json& object, const char* key) {
    static const Json kEmpty = Json::array();
    const Json& value = field(object, key);
    return value.is_array() ? value : kEmpty;
}

}  // namespace gpukill::cli::json_fields
