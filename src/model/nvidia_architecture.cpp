#include "model/nvidia_architecture.hpp"

#include <array>
#include <utility>

namespace gpukill {
namespace {

constexpr std::array<std::pair<unsigned, const char*>, 9> kNames = {{
    {kNvmlArchKepler, "kepler"},
    {kNvmlArchMaxwell, "maxwell"},
    {kNvmlArchPascal, "pascal"},
    {kNvmlArchVolta, "volta"},
    {kNvmlArchTuring, "turing"},
    {kNvmlArchAmpere, "ampere"},
    {kNvmlArchAda, "ada"},
    {kNvmlArchHopper, "hopper"},
    {kNvmlArchBlackwell, "blackwell"},
}};

}  // namespace

std::optional<std::string> nvml_architecture_name(unsigned architecture) {
    for (const auto& [number, name] : kNames) {
        if (number == architecture) return std::string(name);
    }
    return std::nullopt;
}

std::optional<unsigned> nvml_architecture_from_name(const std::string& name) {
    for (const auto& [number, known] : kNames) {
        if (name == known) return number;
    }
    return std::nullopt;
}

bool nvlink_peers_reset_together(unsigned architecture) {
    return architecture >= kNvmlArchKepler && architecture < kNvmlArchAmpere;
}

}  // namespace gpukill
