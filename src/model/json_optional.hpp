// An optional as JSON: its value, or null when unknown (the schemas' rule that
// unknown is null, never a guess).
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

namespace gpukill {

template <class T>
nlohmann::ordered_json or_null(const std::optional<T>& value) {
    return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

}  // namespace gpukill
