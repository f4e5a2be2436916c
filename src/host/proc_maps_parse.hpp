// One line of /proc/PID/maps, parsed without allocating: what the fd sweep reads to find
// processes that hold a GPU device node by a mapping alone (fd_sweep.hpp). Pure.
//
// The kernel writes each line as
//     START-END PERMS OFFSET MAJOR:MINOR INODE<spaces>PATH
//     7f3c1c000000-7f3c1c001000 rw-s 00000000 00:05 1047                       /dev/nvidia0
// in hex but for INODE (decimal); MAJOR:MINOR and INODE name the mapped file (its
// filesystem's device and its inode, as stat's st_dev and st_ino: for a device node,
// the node's own inode on devtmpfs, not the device it stands for). PATH is the file as
// the mapping process sees it (its own mount namespace), " (deleted)" after it when
// unlinked, with a newline in it written "\012"; or a pseudo-name ("[heap]", "[stack]",
// "[anon:NAME]"); or nothing for anonymous memory (then MAJOR:MINOR is 00:00, INODE 0).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string_view>

namespace gpukill {

struct MapsLine {
    std::string_view range;  // "START-END": the name of its entry in /proc/PID/map_files
    dev_t device = 0;        // the mapped file's filesystem, as stat's st_dev
    std::uint64_t inode = 0;
    std::string_view path;  // as printed (see above); empty for anonymous memory
};

// The path field alone, without reading the numbers before it: nearly every line is a
// library or anonymous memory, and its path decides that before anything is parsed.
// Empty for anonymous memory and for a line that is not a maps line.
std::string_view maps_line_path(std::string_view line);

// The whole line (without its '\n'); empty when it is not a maps line.
std::optional<MapsLine> parse_maps_line(std::string_view line);

}  // namespace gpukill
