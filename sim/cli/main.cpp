// gpusim: a simulated NVIDIA host for gpukill's tests and demos (docs/SIMULATOR.md).

#include <fmt/core.h>
#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli/commands.hpp"

namespace gpusim {

int report(const Error& error) {
    fmt::print(stderr, "gpusim: {}\n", error.message);
    std::fflush(stderr);
    return error.exit_code;
}

namespace {

void add_root(CLI::App* command, std::filesystem::path& root) {
    command->add_option("--root", root, "Directory of the simulated host")->required();
}

int run(int argc, char** argv) {
    CLI::App app{"gpusim: a simulated NVIDIA driver and GPU workloads for testing gpukill"};
    app.require_subcommand(1);

    InitOptions init;
    CLI::App* init_cmd = app.add_subcommand("init", "Create a simulated host under --root");
    add_root(init_cmd, init.root);
    init_cmd->add_option("--scenario", init.scenario, "YAML scenario (docs/SIMULATOR.md)");
    init_cmd->add_flag("--force", init.force, "Re-create an existing root");

    std::filesystem::path env_root;
    CLI::App* env_cmd = app.add_subcommand("env", "Print export lines that point gpukill at it");
    add_root(env_cmd, env_root);

    RunOptions run;
    CLI::App* run_cmd = app.add_subcommand("run", "Run a workload process that uses a GPU");
    add_root(run_cmd, run.root);
    CLI::Option* run_gpu = run_cmd->add_option("--gpu", run.gpu, "GPU index");
    CLI::Option* run_mem =
        run_cmd->add_option("--mem", run.memory, "Memory to allocate: 1024, 512M, 1.5G, 4G");
    CLI::Option* run_drm =
        run_cmd->add_option("--drm", run.drm, "DRM GPU index (scenario drm_gpus), instead of --gpu")
            ->excludes(run_gpu)
            ->excludes(run_mem);
    run_cmd->add_flag("--kfd-only", run.kfd_only, "amdgpu: hold /dev/kfd, not the render node")
        ->needs(run_drm);
    run_cmd->add_option("--kfd-vram", run.kfd_vram, "amdgpu: VRAM shown in kfd's sysfs: 512M, 4G")
        ->needs(run_drm);
    run_cmd->add_option("--util", run.util_percent, "Simulated utilisation (percent)")
        ->check(CLI::Range(0U, 100U));
    run_cmd->add_option("--workers", run.workers, "Forked workers sharing the GPU descriptors")
        ->check(CLI::Range(0U, 256U));
    run_cmd->add_flag("--mapping-only", run.mapping_only,
                      "Close each device file once mapped: hold the GPU by the mappings alone");
    run_cmd->add_flag("--ignore-term", run.ignore_term, "Ignore SIGTERM (parent and workers)");
    run_cmd->add_option("--term-delay", run.term_delay_seconds, "Exit this long after SIGTERM")
        ->check(CLI::NonNegativeNumber);
    run_cmd->add_option("--name", run.name, "Process name (comm and argv[0])");
    run_cmd->add_flag("--background", run.background, "Detach once ready; print the ready line");
    run_cmd->add_option("--connect", run.connect, "Hold a TCP connection to IP:PORT (repeatable)")
        ->allow_extra_args(false);
    run_cmd->add_option("args", run.passthrough, "Extra arguments (after --): command line only");

    ObserveOptions observe;
    CLI::App* observe_cmd = app.add_subcommand(
        "observe", "Hold the GPUs' device files as a monitoring client (NVML) does");
    add_root(observe_cmd, observe.root);
    observe_cmd->add_option("--gpu", observe.gpus, "Only this GPU's node (repeatable)")
        ->allow_extra_args(false);
    observe_cmd->add_option("--name", observe.name, "Process name (comm and argv[0])");
    observe_cmd->add_flag("--background", observe.background,
                          "Detach once ready; print the ready line");

    LeakOptions leak;
    CLI::App* leak_cmd = app.add_subcommand("leak", "Leak GPU memory with no process behind it");
    add_root(leak_cmd, leak.root);
    leak_cmd->add_option("--gpu", leak.gpu, "GPU index")->required();
    leak_cmd->add_option("--mem", leak.memory, "Memory to leak: 512M, 4G")->required();

    StatusOptions status;
    CLI::App* status_cmd = app.add_subcommand("status", "Show memory, allocations and leaks");
    add_root(status_cmd, status.root);
    status_cmd->add_flag("--json", status.json, "One JSON document");

    ResetOptions reset;
    CLI::App* reset_cmd = app.add_subcommand("reset", "Clear a GPU's allocations and leaks");
    add_root(reset_cmd, reset.root);
    reset_cmd->add_option("--gpu", reset.gpu, "GPU index")->required();
    reset_cmd->add_flag("--force", reset.force, "Even while processes hold allocations");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
        if (error.get_exit_code() == 0) return app.exit(error);  // --help
        return report(Error{kExitUsage, error.what()});
    }

    if (init_cmd->parsed()) return cmd_init(init);
    if (env_cmd->parsed()) return cmd_env(env_root);
    if (run_cmd->parsed()) {
        if (!run.drm && (run_gpu->count() == 0 || run_mem->count() == 0)) {
            return report(Error{kExitUsage, "run needs --gpu N --mem SIZE, or --drm N"});
        }
        return cmd_run(run, argv);
    }
    if (observe_cmd->parsed()) return cmd_observe(observe, argv);
    if (leak_cmd->parsed()) return cmd_leak(leak);
    if (status_cmd->parsed()) return cmd_status(status);
    return cmd_reset(reset);
}

}  // namespace
}  // namespace gpusim

int main(int argc, char** argv) {
    try {
        // DIR/bin/nvidia-smi links here (gpusim init): gpusim then answers as that tool.
        if (argc > 0 && std::filesystem::path(argv[0]).filename() == "nvidia-smi") {
            return gpusim::run_nvidia_smi(argc, argv);
        }
        return gpusim::run(argc, argv);
    } catch (const std::exception& error) {
        // Only allocation failures and the like get here; still one line, never a crash.
        return gpusim::report(gpusim::Error{gpusim::kExitFailure, error.what()});
    }
}
