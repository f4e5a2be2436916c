#include "model/actor.hpp"

namespace gpukill {

const char* to_string(Interface interface) {
    switch (interface) {
        case Interface::cli:
            return "cli";
        case Interface::guard:
            return "guard";
        case Interface::agent:
            return "agent";
        case Interface::mcp:
            return "mcp";
        case Interface::fleet:
            return "fleet";
        case Interface::library:
            return "library";
        case Interface::top:
            return "top";
    }
    return "library";
}

}  // namespace gpukill
