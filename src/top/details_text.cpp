#include "top/details_text.hpp"

#include <fmt/format.h>

#include "model/human_format.hpp"

namespace gpukill::top {
namespace {

std::string details_command(const ProcessInfo& info) {
    if (info.cmdline.empty()) return "[" + printable(info.comm) + "]";
    std::string joined;
    for (const std::string& argument : info.cmdline) {
        if (!joined.empty()) joined += ' ';
        joined += argument;
    }
    return printable(joined);
}

}  // namespace

std::vector<std::string> details_lines(const engine::ProcessDetails& details,
                                       const SnapshotProcess* holder, const std::string& devfs) {
    const ProcessInfo& info = details.info;
    std::vector<std::string> lines;
    lines.push_back(fmt::format("PID {}  {}  start time {} ticks", info.pid, printable(info.comm),
                                info.start_time_ticks));
    lines.push_back("command: " + details_command(info));
    lines.push_back(fmt::format("user: {}{}  state: {}  parent: {}  group: {}  session: {}",
                                printable(info.user.empty() ? "?" : info.user),
                                info.uid ? fmt::format(" (uid {})", *info.uid) : "", info.state,
                                info.ppid, info.pgid, info.sid));
    if (info.exe) {
        lines.push_back("executable: " + printable(*info.exe) +
                        (info.exe_deleted ? " (deleted)" : ""));
    }
    if (info.container) {
        lines.push_back(fmt::format(
            "container: {} {}{}{}", info.container->runtime, printable(info.container->id),
            info.container->pod_uid ? " pod " + *info.container->pod_uid : "",
            info.container->pod_namespace
                ? " in namespace " + printable(*info.container->pod_namespace)
                : ""));
        if (info.container->pod_name) {
            lines.push_back(
                fmt::format("pod: {}{}", printable(*info.container->pod_name),
                            info.container->container_name
                                ? ", container " + printable(*info.container->container_name)
                                : ""));
        }
        if (info.container->image) {
            lines.push_back("image: " + printable(*info.container->image));
        }
    }
    if (holder != nullptr) {
        if (holder->orphaned)
            lines.push_back("orphaned: its parent died; it was re-parented to init");
        for (const ProcessGpuUse& use : holder->gpus) {
            lines.push_back(fmt::format(
                "GPU {}: {} of memory, seen by {}{}", use.gpu_index, format_bytes(use.memory_bytes),
                use.seen_by.driver && use.seen_by.device_file ? "the driver and its device file"
                : use.seen_by.driver                          ? "the driver"
                                     : "its device file only (the driver does not list it)",
                use.known() ? "" : " (/dev/kfd: some AMD GPU)"));
        }
        lines.push_back(fmt::format("GPU files held ({}):", holder->device_nodes.size()));
        for (const DeviceNode& node : holder->device_nodes) {
            // A mapping alone (the descriptor closed) holds the GPU as an open file does.
            const char* how = node.access.descriptor && node.access.mapping ? "  open, mapped"
                              : node.access.mapping                         ? "  mapped only"
                              : node.access.descriptor                      ? "  open"
                                                                            : "";
            lines.push_back(fmt::format("  {}/{}  {}{}", devfs, printable(node.relative_path),
                                        to_string(node.kind), how));
        }
    }
    lines.push_back("cgroup:");
    if (details.cgroup) {
        std::string_view text = *details.cgroup;
        while (!text.empty()) {
            const auto end = text.find('\n');
            if (!text.substr(0, end).empty())
                lines.push_back("  " + printable(text.substr(0, end)));
            if (end == std::string_view::npos) break;
            text.remove_prefix(end + 1);
        }
    } else {
        lines.push_back("  " + details.cgroup_problem);
    }
    lines.push_back("parents:");
    for (const ProcessInfo& ancestor : details.ancestors) {
        lines.push_back(fmt::format("  {} {} ({}): {}", ancestor.pid, printable(ancestor.comm),
                                    printable(ancestor.user), details_command(ancestor)));
    }
    if (details.ancestors.empty()) lines.push_back("  none readable");
    lines.push_back("rogue evidence:");
    if (details.rogue) {
        lines.push_back(fmt::format("  score {} ({}){}", details.rogue->score, details.rogue->risk,
                                    details.rogue->allowed ? ", allowed by the allow list" : ""));
        for (const engine::RogueEvidence& evidence : details.rogue->evidence) {
            lines.push_back(fmt::format("  +{} {}", evidence.weight, printable(evidence.detail)));
        }
    } else {
        lines.push_back("  " + details.rogue_note);
    }
    return lines;
}

std::vector<std::string> environment_lines(const std::vector<std::string>& environment) {
    std::vector<std::string> lines;
    for (const std::string& entry : environment) lines.push_back(printable(entry));
    if (lines.empty()) lines.push_back("(empty environment)");
    return lines;
}

}  // namespace gpukill::top
