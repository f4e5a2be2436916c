// protected.yaml: the list no path of gpukill may signal.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "config/protected_list_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    static const gpukill::reclaim::ProtectedList defaults =
        gpukill::reclaim::default_protected_list();
    (void)gpukill::config::parse_protected_list(text, "protected.yaml", defaults);
    return 0;
}
