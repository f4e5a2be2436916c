#include "model/kill_results.hpp"

namespace gpukill::reclaim {

const char* to_string(Outcome outcome) {
    switch (outcome) {
        case Outcome::exited:
            return "exited";
        case Outcome::terminated:
            return "terminated";
        case Outcome::killed:
            return "killed";
        case Outcome::survived:
            return "survived";
        case Outcome::refused:
            return "refused";
        case Outcome::gone:
            return "gone";
        case Outcome::failed:
            return "failed";
    }
    return "unknown";
}

}  // namespace gpukill::reclaim
