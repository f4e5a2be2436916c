// The default protected list: processes that hold GPUs on behalf of everyone, so that
// killing them hurts every user of the machine and rarely frees what the caller wants.
#include "reclaim/select.hpp"

namespace gpukill::reclaim {

ProtectedList default_protected_list() {
    ProtectedList list;
    list.names = {
        // Display servers and compositors: they hold the GPU for the desktop; killing one
        // ends every graphical session on the machine.
        "Xorg",
        "X",
        "Xwayland",
        "gnome-shell",
        "kwin_wayland",
        "kwin_x11",
        "plasmashell",
        "sway",
        "weston",
        // Display managers: they restart the display server and own the login screen.
        "gdm",
        "gdm3",
        "sddm",
        "lightdm",
        // The NVIDIA stack's own daemons: persistence keeps the driver initialised between
        // jobs; DCGM (nv-hostengine) and its exporter feed monitoring; the fabric manager
        // runs NVSwitch systems (killing it takes every GPU on the board down); the
        // Kubernetes device plugin hands GPUs to pods.
        "nvidia-persistenced",
        "nv-hostengine",
        "dcgm-exporter",
        "nv-fabricmanager",
        "nvidia-device-plugin",
        // Observers: they open the device files only to read metrics and hold no memory, so
        // killing them frees nothing. gpukill covers another instance (a watch, a list);
        // gpukill-interfaces is what the agent, the MCP server, `top` and fleet commands
        // run as (gpukill execs it for them: src/cli/interface_commands.hpp).
        "nvidia-smi",
        "gpukill",
        "gpukill-interfaces",
    };
    return list;
}

}  // namespace gpukill::reclaim
