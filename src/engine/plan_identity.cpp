#include "engine/plan_identity.hpp"

#include <fmt/format.h>

namespace gpukill::engine {

PlanIdentity& PlanIdentity::add(std::uint64_t value) {
    for (int byte = 0; byte < 8; ++byte) {
        hash_ ^= (value >> (8 * byte)) & 0xff;
        hash_ *= 0x100000001b3ULL;
    }
    return *this;
}

std::string PlanIdentity::hex() const {
    return fmt::format("{:016x}", hash_);
}

}  // namespace gpukill::engine
