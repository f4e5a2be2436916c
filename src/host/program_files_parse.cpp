#include <set>

#include "host/proc_parse.hpp"
#include "host/program_files.hpp"
#include "model/parse_util.hpp"

namespace gpukill {
namespace {

// The next whitespace-separated field of `line`, taken off its front.
std::string_view next_field(std::string_view& line) {
    const auto start = line.find_first_not_of(' ');
    if (start == std::string_view::npos) {
        line = {};
        return {};
    }
    line.remove_prefix(start);
    const auto end = line.find(' ');
    const std::string_view field = line.substr(0, end);
    line.remove_prefix(end == std::string_view::npos ? line.size() : end);
    return field;
}

}  // namespace

std::vector<ExecutableMapping> parse_executable_mappings(std::string_view maps_text) {
    std::vector<ExecutableMapping> mappings;
    std::set<std::string> seen;
    text::for_each_line(maps_text, [&](std::string_view line) {
        // "START-END PERMS OFFSET MAJOR:MINOR INODE   PATH"; the path may hold spaces.
        const std::string_view range = next_field(line);
        const std::string_view perms = next_field(line);
        next_field(line);  // offset
        next_field(line);  // device
        next_field(line);  // inode
        const auto path_start = line.find_first_not_of(' ');
        if (range.empty() || perms.size() < 4 || perms[2] != 'x') return;
        if (path_start == std::string_view::npos || line[path_start] != '/') return;
        const ExeLink link = parse_exe_link(line.substr(path_start));
        if (!seen.insert(link.path).second) return;
        mappings.push_back({std::string(range), link.path, link.deleted});
    });
    return mappings;
}

}  // namespace gpukill
