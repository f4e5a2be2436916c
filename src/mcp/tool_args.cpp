#include "mcp/tool_args.hpp"

namespace gpukill::mcp {
namespace {

const nlohmann::json* argument(const nlohmann::json& arguments, const char* name) {
    if (!arguments.is_object()) return nullptr;
    const auto found = arguments.find(name);
    if (found == arguments.end() || found->is_null()) return nullptr;
    return &*found;
}

std::string wrong_type(const char* name, const char* wanted) {
    return std::string(name) + ": expected " + wanted;
}

}  // namespace

std::optional<std::string> read_optional_string(const nlohmann::json& arguments, const char* name,
                                                std::optional<std::string>& value) {
    const nlohmann::json* found = argument(arguments, name);
    if (found == nullptr) return std::nullopt;
    if (!found->is_string()) return wrong_type(name, "a string");
    value = found->get<std::string>();
    return std::nullopt;
}

std::optional<std::string> read_bool_argument(const nlohmann::json& arguments, const char* name,
                                              bool& value) {
    const nlohmann::json* found = argument(arguments, name);
    if (found == nullptr) return std::nullopt;
    if (!found->is_boolean()) return wrong_type(name, "true or false");
    value = found->get<bool>();
    return std::nullopt;
}

std::optional<std::string> read_number_argument(const nlohmann::json& arguments, const char* name,
                                                double& value) {
    const nlohmann::json* found = argument(arguments, name);
    if (found == nullptr) return std::nullopt;
    if (!found->is_number()) return wrong_type(name, "a number");
    value = found->get<double>();
    return std::nullopt;
}

std::optional<std::string> read_optional_unsigned(const nlohmann::json& arguments, const char* name,
                                                  std::optional<std::uint64_t>& value) {
    const nlohmann::json* found = argument(arguments, name);
    if (found == nullptr) return std::nullopt;
    if (!found->is_number_unsigned()) return wrong_type(name, "a non-negative integer");
    value = found->get<std::uint64_t>();
    return std::nullopt;
}

std::optional<std::string> read_string_list(const nlohmann::json& arguments, const char* name,
                                            std::vector<std::string>& value) {
    const nlohmann::json* found = argument(arguments, name);
    if (found == nullptr) return std::nullopt;
    if (!found->is_array()) return wrong_type(name, "an array of strings");
    for (const nlohmann::json& item : *found) {
        if (!item.is_string()) return wrong_type(name, "an array of strings");
        value.push_back(item.get<std::string>());
    }
    return std::nullopt;
}

std::optional<std::string> read_gpu_argument(const nlohmann::json& arguments, const char* name,
                                             std::string& value) {
    const nlohmann::json* found = argument(arguments, name);
    if (found == nullptr) return std::string(name) + ": required (index, UUID or PCI bus id)";
    if (found->is_number_unsigned()) {
        value = std::to_string(found->get<std::uint64_t>());
        return std::nullopt;
    }
    if (!found->is_string()) return wrong_type(name, "a GPU index, UUID or PCI bus id");
    value = found->get<std::string>();
    return std::nullopt;
}

}  // namespace gpukill::mcp
