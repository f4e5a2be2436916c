#pragma once
// gpusim's commands. Each parses nothing (main.cpp does), does its work and returns the exit
// code, having printed any error as one "gpusim: ..." line on stderr.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "state/error.hpp"

namespace gpusim {

struct InitOptions {
    std::filesystem::path root;
    std::optional<std::filesystem::path> scenario;
    bool force = false;
};

struct RunOptions {
    std::filesystem::path root;
    unsigned gpu = 0;
    std::string memory;  // a size, parsed by the command so a bad one exits 3
    unsigned util_percent = 0;
    unsigned workers = 0;
    bool ignore_term = false;
    double term_delay_seconds = 0;
    std::optional<std::string> name;
    bool background = false;
    std::optional<unsigned> drm;           // --drm N: a DRM GPU of the scenario's drm_gpus instead
    bool kfd_only = false;                 // --kfd-only: /dev/kfd without the render node
    bool mapping_only = false;             // --mapping-only: device nodes mapped, fds closed
    std::optional<std::string> kfd_vram;   // --kfd-vram SIZE: the process's VRAM in kfd's sysfs
    std::vector<std::string> connect;      // --connect HOST:PORT: TCP connections held for life
    std::vector<std::string> passthrough;  // extra arguments: only shown in the command line
};

struct ObserveOptions {
    std::filesystem::path root;
    std::vector<unsigned> gpus;  // --gpu N (repeatable); none: every GPU
    std::optional<std::string> name;
    bool background = false;
};

struct LeakOptions {
    std::filesystem::path root;
    unsigned gpu = 0;
    std::string memory;
};

struct StatusOptions {
    std::filesystem::path root;
    bool json = false;
};

struct ResetOptions {
    std::filesystem::path root;
    unsigned gpu = 0;
    bool force = false;
};

int cmd_init(const InitOptions& options);
int cmd_env(const std::filesystem::path& root);
// `argv` is the process's own, needed to re-execute it under --name.
int cmd_run(const RunOptions& options, char** argv);
// `argv` as for cmd_run.
int cmd_observe(const ObserveOptions& options, char** argv);
int cmd_leak(const LeakOptions& options);
int cmd_status(const StatusOptions& options);
int cmd_reset(const ResetOptions& options);

// gpusim invoked as `nvidia-smi` (argv[0]'s file name): its reset path, with nvidia-smi's
// messages and return codes rather than gpusim's.
int run_nvidia_smi(int argc, char** argv);

// Prints "gpusim: MESSAGE" on stderr and returns the error's exit code.
int report(const Error& error);

}  // namespace gpusim
