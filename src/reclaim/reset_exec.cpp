#include "reclaim/reset_exec.hpp"

#include <fcntl.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>

#include "host/run_program.hpp"
#include "sys/fd_io.hpp"

namespace gpukill::reclaim {
namespace {

const ResetGpu* planned(const ResetPlan& plan, unsigned index) {
    for (const ResetGpu& gpu : plan.gpus) {
        if (gpu.index == index) return &gpu;
    }
    return nullptr;
}

ResetAttempt run_nvidia_smi(const ResetPlan& plan, ResetAttempt attempt,
                            const std::optional<std::string>& nvidia_smi,
                            const ResetExecOptions& options) {
    std::vector<std::string> bus_ids;
    for (unsigned index : attempt.gpus) {
        const ResetGpu* gpu = planned(plan, index);
        // nvidia-smi -i takes an index too, but gpukill's and nvidia-smi's may differ
        // when other vendors' GPUs sit between; a bus id cannot be misread.
        bus_ids.push_back(gpu != nullptr && gpu->pci_bus_id ? nvidia_smi_bus_id(*gpu->pci_bus_id)
                                                            : std::to_string(index));
    }
    if (!nvidia_smi) {
        attempt.status = {ResetFailure::unsupported, "nvidia-smi was not found", std::nullopt};
        return attempt;
    }
    attempt.command = nvidia_smi_reset_command(*nvidia_smi, bus_ids);
    auto run = run_program(attempt.command,
                           ProgramOptions{.timeout_seconds = options.command_timeout_seconds});
    if (!run) {
        attempt.status = {ResetFailure::failed, run.error().what, std::nullopt};
        return attempt;
    }
    attempt.output = run->output;
    attempt.seconds = run->seconds;
    attempt.exit_status = run->exit_status;
    if (run->timed_out) {
        attempt.status = {ResetFailure::failed,
                          fmt::format("nvidia-smi did not finish within {:.0f} s and was stopped",
                                      options.command_timeout_seconds),
                          "check dmesg for NVIDIA Xid messages; the GPU may need a reboot"};
    } else if (run->exit_status) {
        attempt.status = interpret_nvidia_smi_exit(*run->exit_status);
    } else {
        attempt.status = {
            ResetFailure::failed,
            fmt::format("nvidia-smi was killed by signal {}", run->signal.value_or(0)),
            std::nullopt};
    }
    return attempt;
}

// The kernel recovers the GPU while the read is in progress and then returns a short
// text; the read itself is the request.
ResetAttempt read_amdgpu_recover(const ResetPlan& plan, ResetAttempt attempt) {
    const ResetGpu* gpu = planned(plan, attempt.gpus.front());
    if (gpu == nullptr || !gpu->amdgpu_recover_path) {
        attempt.status = interpret_amdgpu_recover_errno(ENOENT);
        return attempt;
    }
    attempt.command = {"read", *gpu->amdgpu_recover_path};
    const auto start = std::chrono::steady_clock::now();
    auto text = read_file_at(AT_FDCWD, gpu->amdgpu_recover_path->c_str());
    attempt.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!text) {
        attempt.status = interpret_amdgpu_recover_errno(text.error().errno_value);
        return attempt;
    }
    attempt.output = *text;
    attempt.status = interpret_amdgpu_recover_errno(0);
    return attempt;
}

}  // namespace

std::string nvidia_smi_bus_id(std::string_view normalised) {
    const std::size_t colon = normalised.find(':');
    if (colon == std::string_view::npos) return std::string(normalised);
    std::string domain(normalised.substr(0, colon));
    if (domain.size() < 8) domain.insert(0, 8 - domain.size(), '0');
    std::string rest(normalised.substr(colon));
    for (char& c : domain) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (char& c : rest) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return domain + rest;
}

std::vector<std::string> nvidia_smi_reset_command(const std::string& nvidia_smi,
                                                  const std::vector<std::string>& bus_ids) {
    std::string ids;
    for (const std::string& id : bus_ids) {
        if (!ids.empty()) ids += ',';
        ids += id;
    }
    return {nvidia_smi, "-r", "-i", ids};
}

ResetAttempt reset_group(const ResetPlan& plan, const std::vector<unsigned>& group,
                         const std::optional<std::string>& nvidia_smi,
                         const ResetExecOptions& options) {
    ResetAttempt attempt;
    attempt.gpus = group;
    const ResetGpu* first = group.empty() ? nullptr : planned(plan, group.front());
    if (first == nullptr) {
        attempt.status = {ResetFailure::failed, "no GPU in this reset group", std::nullopt};
        return attempt;
    }
    attempt.method = first->method;
    switch (first->method) {
        case ResetMethod::nvidia_smi:
            return run_nvidia_smi(plan, std::move(attempt), nvidia_smi, options);
        case ResetMethod::amdgpu_debugfs:
            return read_amdgpu_recover(plan, std::move(attempt));
    }
    return attempt;
}

}  // namespace gpukill::reclaim
