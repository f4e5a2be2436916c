#include "sys/own_programs.hpp"

#include <system_error>

namespace gpukill {

std::optional<OwnPrograms> own_programs() {
    std::error_code failed;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", failed);
    if (failed) return std::nullopt;
    if (self.filename() == "gpukill-interfaces") {
        const auto bindir = self.parent_path() / GPUKILL_INTERFACES_BACK;
        return OwnPrograms{(bindir / "gpukill").lexically_normal(), self};
    }
    return OwnPrograms{self,
                       (self.parent_path() / GPUKILL_INTERFACES_RELATIVE / "gpukill-interfaces")
                           .lexically_normal()};
}

}  // namespace gpukill
