// guard.yaml: the strict policy reader (through the bounded YAML loader).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "guard/policy_yaml.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    (void)gpukill::guard::parse_policy(text, "guard.yaml");
    return 0;
}
