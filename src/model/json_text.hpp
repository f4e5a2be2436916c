// A JSON document as text for a reader. Names and command lines come from other users'
// processes and can hold any bytes (`exec -a $'\xff'`): bytes that are not UTF-8 are
// written as U+FFFD, never a reason to abort the document (nlohmann's default throws).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gpukill {

// indent -1: one line (JSON Lines), else pretty-printed with that many spaces.
template <class Json>
std::string json_text(const Json& document, int indent = 2) {
    return document.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace gpukill
