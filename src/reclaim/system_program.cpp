#include "reclaim/system_program.hpp"

#include <sys/stat.h>

#include <fmt/format.h>

#include "model/quoted_text.hpp"

namespace gpukill::reclaim {
namespace {

// Neither group nor others may write it.
bool writable_by_others(const FileFacts& facts) {
    return (facts.mode & (S_IWGRP | S_IWOTH)) != 0;
}

std::optional<std::string> directory_problem(const PathStep& step) {
    const std::string where = quote_escaped(step.path);
    if (!S_ISDIR(step.facts.mode)) return fmt::format("{} is not a directory", where);
    if (step.facts.uid != 0) {
        return fmt::format("{} is owned by uid {}, not root", where, step.facts.uid);
    }
    if (writable_by_others(step.facts)) {
        return fmt::format("{} is writable by others (mode {:o})", where, step.facts.mode & 07777);
    }
    return std::nullopt;
}

// Why `file` (what = "its executable", "it maps") is not a system file; empty when it is.
std::optional<std::string> file_problem(const ProgramFile& file, std::string_view what) {
    const std::string path = quote_escaped(file.path);
    if (file.unresolved) {
        return fmt::format("{} {} cannot be checked: {}", what, path, *file.unresolved);
    }
    for (const PathStep& step : file.directories) {
        if (auto problem = directory_problem(step)) {
            return fmt::format("{} {} is in a directory root does not alone control: {}", what,
                               path, *problem);
        }
    }
    if (!file.file) {
        return fmt::format("{} {}{}: its owner cannot be read", what, path,
                           file.deleted ? " (deleted)" : "");
    }
    if (!S_ISREG(file.file->mode)) return fmt::format("{} {} is not a regular file", what, path);
    if (file.file->uid != 0) {
        return fmt::format("{} {} is owned by uid {}, not root", what, path, file.file->uid);
    }
    if (writable_by_others(*file.file)) {
        return fmt::format("{} {} is writable by others (mode {:o})", what, path,
                           file.file->mode & 07777);
    }
    return std::nullopt;
}

std::string_view file_name_of(std::string_view path) {
    const auto slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::optional<std::string> not_system_program(const ProgramFiles& files) {
    if (!files.own_user_namespace) {
        return "it runs in a user namespace of its own, whose mounts its user controls";
    }
    if (auto problem = file_problem(files.executable, "its executable")) return problem;
    for (const ProgramFile& mapped : files.mapped) {
        if (auto problem = file_problem(mapped, "it maps")) return problem;
    }
    if (files.mapped_truncated) {
        return fmt::format("it maps more than {} files executable; not all were checked",
                           kMaxMappedFiles);
    }
    return std::nullopt;
}

namespace {

bool path_named(std::string_view exe, const std::set<std::string>& entries) {
    if (exe.empty()) return false;
    for (const std::string& entry : entries) {
        if (entry.find('/') != std::string::npos) {
            if (exe == entry) return true;
        } else if (file_name_of(exe) == entry) {
            return true;
        }
    }
    return false;
}

}  // namespace

bool executable_named(const ProcessInfo& info, const std::set<std::string>& entries) {
    return info.exe && path_named(*info.exe, entries);
}

std::set<std::string> program_entries(const ProtectedList& list) {
    std::set<std::string> entries = list.names;
    entries.insert(list.executable_paths.begin(), list.executable_paths.end());
    for (const auto& [program, users] : list.owned_programs) entries.insert(program);
    return entries;
}

SystemPrograms find_system_programs(const HostRoots& roots,
                                    const std::vector<const ProcessInfo*>& processes,
                                    const std::set<std::string>& entries) {
    SystemPrograms found;
    std::set<std::pair<pid_t, std::uint64_t>> looked_at;
    for (const ProcessInfo* info : processes) {
        if (info == nullptr || info->pid <= 0 || !executable_named(*info, entries)) continue;
        const std::pair<pid_t, std::uint64_t> identity{info->pid, info->start_time_ticks};
        if (!looked_at.insert(identity).second) continue;
        auto files = read_program_files(roots, info->pid);
        // The same process, still running what it was listed with (an exec since keeps
        // the PID and start time).
        if (!files || files->start_time_ticks != info->start_time_ticks) continue;
        if (!path_named(files->executable.path, entries)) continue;
        if (!not_system_program(*files)) found.insert(identity);
    }
    return found;
}

void find_system_programs(const HostRoots& roots, const Snapshot& snapshot,
                          const ProcessTable& table, SafetyContext& safety) {
    std::vector<const ProcessInfo*> processes;
    processes.reserve(snapshot.processes.size() + table.size());
    for (const SnapshotProcess& process : snapshot.processes) processes.push_back(&process.info);
    for (const ProcessInfo& info : table) processes.push_back(&info);
    safety.system_programs =
        find_system_programs(roots, processes, program_entries(safety.protected_list));
}

}  // namespace gpukill::reclaim
