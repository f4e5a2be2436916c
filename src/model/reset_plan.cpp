#include "model/reset_plan.hpp"

namespace gpukill::reclaim {

const char* to_string(ResetMethod method) {
    switch (method) {
        case ResetMethod::nvidia_smi:
            return "nvidia-smi";
        case ResetMethod::amdgpu_debugfs:
            return "amdgpu_debugfs";
    }
    return "?";
}

const char* to_string(ResetBlock block) {
    switch (block) {
        case ResetBlock::none:
            return "none";
        case ResetBlock::unsupported:
            return "unsupported";
        case ResetBlock::permission:
            return "permission";
        case ResetBlock::incomplete_group:
            return "incomplete_group";
        case ResetBlock::holders:
            return "holders";
    }
    return "?";
}

const char* to_string(ResetDecision decision) {
    switch (decision) {
        case ResetDecision::reset:
            return "reset";
        case ResetDecision::reclaim_then_reset:
            return "reclaim_then_reset";
        case ResetDecision::held:
            return "held";
        case ResetDecision::refused:
            return "refused";
    }
    return "?";
}

}  // namespace gpukill::reclaim
