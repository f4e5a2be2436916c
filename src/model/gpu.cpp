#include "model/gpu.hpp"

namespace gpukill {

const char* to_string(Vendor vendor) {
    switch (vendor) {
        case Vendor::nvidia:
            return "nvidia";
        case Vendor::amd:
            return "amd";
        case Vendor::intel:
            return "intel";
        case Vendor::other:
            return "other";
    }
    return "other";
}

const char* to_string(DriverProcessKind kind) {
    switch (kind) {
        case DriverProcessKind::compute:
            return "compute";
        case DriverProcessKind::graphics:
            return "graphics";
        case DriverProcessKind::mps:
            return "mps";
    }
    return "compute";
}

}  // namespace gpukill
