// Reading a tool call's arguments: each reader leaves the value as it was when the
// argument is absent or null, and returns the one-line reason when it has another type.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpukill::mcp {

std::optional<std::string> read_optional_string(const nlohmann::json& arguments, const char* name,
                                                std::optional<std::string>& value);
std::optional<std::string> read_bool_argument(const nlohmann::json& arguments, const char* name,
                                              bool& value);
std::optional<std::string> read_number_argument(const nlohmann::json& arguments, const char* name,
                                                double& value);
std::optional<std::string> read_optional_unsigned(const nlohmann::json& arguments, const char* name,
                                                  std::optional<std::uint64_t>& value);
std::optional<std::string> read_string_list(const nlohmann::json& arguments, const char* name,
                                            std::vector<std::string>& value);
// A GPU as an index (integer) or a selector (string); required.
std::optional<std::string> read_gpu_argument(const nlohmann::json& arguments, const char* name,
                                             std::string& value);

}  // namespace gpukill::mcp
