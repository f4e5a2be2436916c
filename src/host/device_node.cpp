// Names for device node kinds as they appear in JSON and tables (snake_case, stable).
#include "model/device_node.hpp"

namespace gpukill {

const char* to_string(DeviceNodeKind kind) {
    switch (kind) {
        case DeviceNodeKind::nvidia_gpu:
            return "nvidia_gpu";
        case DeviceNodeKind::nvidia_ctl:
            return "nvidia_ctl";
        case DeviceNodeKind::nvidia_uvm:
            return "nvidia_uvm";
        case DeviceNodeKind::nvidia_caps:
            return "nvidia_caps";
        case DeviceNodeKind::dri_card:
            return "dri_card";
        case DeviceNodeKind::dri_render:
            return "dri_render";
        case DeviceNodeKind::kfd:
            return "kfd";
        case DeviceNodeKind::accel:
            return "accel";
    }
    return "unknown";  // only reachable through a cast of an out-of-range value
}

}  // namespace gpukill
