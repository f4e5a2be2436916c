#include "host/process_access.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>

#include "host/capabilities.hpp"
#include "host/proc_reader.hpp"
#include "model/parse_util.hpp"

namespace gpukill {
namespace {

constexpr std::size_t kDeniedRead = 3;

// "CAP_SYS_MODULE, CAP_SYS_RESOURCE": the capabilities in `mask`, at most three named.
std::string capability_list(std::uint64_t mask) {
    std::vector<std::string> names;
    std::size_t count = 0;
    for (unsigned bit = 0; bit < 64; ++bit) {
        if (((mask >> bit) & 1U) == 0) continue;
        if (++count <= 3) names.push_back(capability_name(bit));
    }
    std::string text = fmt::format("{}", fmt::join(names, ", "));
    if (count > 3) text += fmt::format(" and {} more", count - 3);
    return text;
}

// "PID 1 (process_api)"
std::string denied_label(const ProcessAccessFacts::Denied& denied) {
    return denied.comm.empty() ? fmt::format("PID {}", denied.pid)
                               : fmt::format("PID {} ({})", denied.pid, denied.comm);
}

bool nested_pid_namespace(std::string_view status_text) {
    bool nested = false;
    text::for_each_line(status_text, [&](std::string_view line) {
        constexpr std::string_view key = "NSpid:";
        if (!line.starts_with(key)) return;
        const std::string_view pids = text::trim(line.substr(key.size()));
        nested = pids.find_first_of(" \t") != std::string_view::npos;
    });
    return nested;
}

std::string comm_of(std::string_view status_text) {
    std::string name;
    text::for_each_line(status_text, [&](std::string_view line) {
        constexpr std::string_view key = "Name:";
        if (name.empty() && line.starts_with(key)) name = text::trim(line.substr(key.size()));
    });
    return name;
}

}  // namespace

std::string unreadable_processes_advice(const ProcessAccessFacts& facts) {
    if (facts.euid != 0) return "run as root (sudo gpukill ...) to see every user's GPU holders";
    const bool ptrace =
        facts.effective_caps && ((*facts.effective_caps >> kCapSysPtrace) & 1U) != 0;
    if (facts.effective_caps && !ptrace) {
        return "gpukill runs as root without CAP_SYS_PTRACE, which reading another user's "
               "open files needs (containers drop it by default): grant it, e.g. docker run "
               "--cap-add SYS_PTRACE, or securityContext.capabilities.add: [SYS_PTRACE]";
    }
    // Root with CAP_SYS_PTRACE (or unknown capabilities): nothing to grant from here.
    for (const ProcessAccessFacts::Denied& denied : facts.denied) {
        if (!denied.permitted_caps || !facts.effective_caps) continue;
        const std::uint64_t beyond = *denied.permitted_caps & ~*facts.effective_caps;
        if (beyond == 0) continue;
        return fmt::format(
            "already root with CAP_SYS_PTRACE: {} holds capabilities this process lacks ({}), "
            "as a sandbox's or virtual machine's own init does, and the kernel keeps its "
            "files from it; run gpukill where it has every capability to see it",
            denied_label(denied), capability_list(beyond));
    }
    return "already root with CAP_SYS_PTRACE: a security module (AppArmor, SELinux) or the "
           "sandbox gpukill runs in refuses them; see its audit log";
}

std::optional<std::string> pid_namespace_advice(const ProcessAccessFacts& facts) {
    if (!facts.own_pid_namespace) return std::nullopt;
    return "gpukill runs in its own PID namespace (a container without the host's): the "
           "host's other processes are not in its /proc at all; run it with the host's "
           "(docker run --pid=host, hostPID: true) or point --procfs at the host's /proc";
}

ProcessAccessFacts read_process_access_facts(const HostRoots& roots,
                                             const std::vector<pid_t>& denied) {
    ProcessAccessFacts facts;
    facts.euid = ::geteuid();
    if (auto own = read_text_file("/proc/self/status")) {
        if (auto caps = parse_capability_mask(*own, "CapEff")) facts.effective_caps = *caps;
        // Another --procfs is the host's /proc mounted elsewhere: it lists the host.
        facts.own_pid_namespace = roots.procfs == "/proc" && nested_pid_namespace(*own);
    }
    for (std::size_t i = 0; i < denied.size() && i < kDeniedRead; ++i) {
        ProcessAccessFacts::Denied entry{.pid = denied[i]};
        if (auto status =
                read_text_file(roots.procfs + "/" + std::to_string(denied[i]) + "/status")) {
            entry.comm = comm_of(*status);
            if (auto caps = parse_capability_mask(*status, "CapPrm")) entry.permitted_caps = *caps;
        }
        facts.denied.push_back(std::move(entry));
    }
    return facts;
}

}  // namespace gpukill
