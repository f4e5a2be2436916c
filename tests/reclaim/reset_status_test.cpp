// What the vendors' reset answers mean, and gpukill's exit codes for them; running the
// reset command itself (a stand-in executable with nvidia-smi's exit codes, and a file in
// place of amdgpu's debugfs recovery entry).
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <fstream>

#include "engine/outcome_codes.hpp"
#include "engine/reset_codes.hpp"
#include "model/reset_status.hpp"
#include "reclaim/reset_exec.hpp"

namespace gpukill {
namespace {

using reclaim::ResetFailure;

class TempDir {
  public:
    TempDir() {
        std::string pattern = (std::filesystem::temp_directory_path() / "reset-XXXXXX").string();
        if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp");
        path_ = pattern;
    }
    ~TempDir() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    const std::filesystem::path& path() const { return path_; }

  private:
    std::filesystem::path path_;
};

std::string script(const TempDir& dir, const std::string& body) {
    const std::string path = (dir.path() / "nvidia-smi").string();
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    chmod(path.c_str(), 0755);
    return path;
}

reclaim::ResetPlan one_nvidia_gpu() {
    reclaim::ResetPlan plan;
    reclaim::ResetGpu gpu;
    gpu.index = 0;
    gpu.pci_bus_id = "0000:3b:00.0";
    gpu.method = reclaim::ResetMethod::nvidia_smi;
    plan.gpus = {gpu};
    plan.groups = {{0}};
    return plan;
}

TEST(ResetStatus, NvidiaSmiReturnCodesAsItsManualPageDocuments) {
    EXPECT_EQ(reclaim::interpret_nvidia_smi_exit(0).failure, ResetFailure::none);
    EXPECT_EQ(reclaim::interpret_nvidia_smi_exit(3).failure, ResetFailure::unsupported);
    EXPECT_EQ(reclaim::interpret_nvidia_smi_exit(4).failure, ResetFailure::permission);
    EXPECT_EQ(reclaim::interpret_nvidia_smi_exit(15).failure, ResetFailure::lost);
    for (int code : {2, 6, 8, 9, 10, 12, 13, 14, 255, 42}) {
        EXPECT_EQ(reclaim::interpret_nvidia_smi_exit(code).failure, ResetFailure::failed) << code;
    }
    EXPECT_NE(reclaim::interpret_nvidia_smi_exit(15).meaning.find("fallen off the bus"),
              std::string::npos);
    EXPECT_NE(reclaim::interpret_nvidia_smi_exit(8).meaning.find("power cables"),
              std::string::npos);
    EXPECT_NE(reclaim::interpret_nvidia_smi_exit(14).meaning.find("infoROM"), std::string::npos);
    EXPECT_NE(reclaim::interpret_nvidia_smi_exit(9).meaning.find("not loaded"), std::string::npos);
    EXPECT_NE(reclaim::interpret_nvidia_smi_exit(42).meaning.find("unknown exit status 42"),
              std::string::npos);
    EXPECT_TRUE(reclaim::interpret_nvidia_smi_exit(255).advice.has_value());
}

TEST(ResetStatus, GpukillExitCodesForEachAnswer) {
    using engine::reset_failure_exit_code;
    EXPECT_EQ(reset_failure_exit_code(ResetFailure::none), exit_code::ok);
    EXPECT_EQ(reset_failure_exit_code(reclaim::interpret_nvidia_smi_exit(3).failure), 5);
    EXPECT_EQ(reset_failure_exit_code(reclaim::interpret_nvidia_smi_exit(4).failure), 4);
    for (int code : {2, 6, 8, 9, 10, 12, 14, 15, 255}) {
        EXPECT_EQ(reset_failure_exit_code(reclaim::interpret_nvidia_smi_exit(code).failure), 1)
            << code;
    }
    EXPECT_EQ(engine::blocked_plan_exit_code(reclaim::ResetBlock::unsupported), 5);
    EXPECT_EQ(engine::blocked_plan_exit_code(reclaim::ResetBlock::permission), 4);
    EXPECT_EQ(engine::blocked_plan_exit_code(reclaim::ResetBlock::incomplete_group), 3);
    EXPECT_EQ(engine::blocked_plan_exit_code(reclaim::ResetBlock::holders), 6);
}

TEST(ResetStatus, OutcomeExitCodeOrdersFailuresThenLostThenNotIdle) {
    reclaim::ResetAttempt ok;
    reclaim::ResetAttempt denied;
    denied.status.failure = ResetFailure::permission;
    reclaim::ResetCheck idle{.gpu = 0, .found = true, .ok = true};
    reclaim::ResetCheck busy{.gpu = 1, .found = true, .holders = {77}};
    reclaim::ResetCheck gone{.gpu = 2};
    EXPECT_EQ(engine::reset_outcome_exit_code({ok}, {idle}), 0);
    EXPECT_EQ(engine::reset_outcome_exit_code({ok, denied}, {idle}), 4);
    EXPECT_EQ(engine::reset_outcome_exit_code({ok}, {idle, busy}),
              engine::reset_exit::not_verified);
    EXPECT_EQ(engine::reset_outcome_exit_code({ok}, {busy, gone}), 1);
}

TEST(ResetStatus, AmdgpuRecoverErrnos) {
    EXPECT_EQ(reclaim::interpret_amdgpu_recover_errno(0).failure, ResetFailure::none);
    EXPECT_EQ(reclaim::interpret_amdgpu_recover_errno(EACCES).failure, ResetFailure::permission);
    EXPECT_EQ(reclaim::interpret_amdgpu_recover_errno(ENOENT).failure, ResetFailure::unsupported);
    EXPECT_EQ(reclaim::interpret_amdgpu_recover_errno(EIO).failure, ResetFailure::failed);
}

TEST(ResetExec, NvidiaSmiGetsTheBusIdInItsOwnSpelling) {
    EXPECT_EQ(reclaim::nvidia_smi_bus_id("0000:3b:00.0"), "00000000:3B:00.0");
    EXPECT_EQ(reclaim::nvidia_smi_bus_id("10000:e1:00.0"), "00010000:E1:00.0");
    EXPECT_EQ(reclaim::nvidia_smi_reset_command("/usr/bin/nvidia-smi",
                                                {"00000000:18:00.0", "00000000:2A:00.0"}),
              (std::vector<std::string>{"/usr/bin/nvidia-smi", "-r", "-i",
                                        "00000000:18:00.0,00000000:2A:00.0"}));
}

TEST(ResetExec, RunsTheToolWithoutAShellAndKeepsWhatItSaid) {
    TempDir dir;
    // The tool sees exactly its arguments: prints them back, says it is not supported.
    const std::string tool = script(dir, "echo \"args: $*\"; echo oops >&2; exit 3");
    reclaim::ResetPlan plan = one_nvidia_gpu();
    reclaim::ResetAttempt attempt = reclaim::reset_group(plan, {0}, tool);
    EXPECT_EQ(attempt.command, (std::vector<std::string>{tool, "-r", "-i", "00000000:3B:00.0"}));
    EXPECT_EQ(attempt.exit_status, 3);
    EXPECT_EQ(attempt.status.failure, ResetFailure::unsupported);
    EXPECT_NE(attempt.output.find("args: -r -i 00000000:3B:00.0"), std::string::npos)
        << attempt.output;
    EXPECT_NE(attempt.output.find("oops"), std::string::npos);
}

TEST(ResetExec, AToolThatHangsIsStoppedAtTheTimeout) {
    TempDir dir;
    const std::string tool = script(dir, "echo starting; exec sleep 30");
    reclaim::ResetPlan plan = one_nvidia_gpu();
    reclaim::ResetAttempt attempt = reclaim::reset_group(
        plan, {0}, tool, reclaim::ResetExecOptions{.command_timeout_seconds = 0.3});
    EXPECT_EQ(attempt.status.failure, ResetFailure::failed);
    EXPECT_NE(attempt.status.meaning.find("did not finish"), std::string::npos);
    EXPECT_LT(attempt.seconds, 5.0);
    EXPECT_NE(attempt.output.find("starting"), std::string::npos);
}

TEST(ResetExec, AMissingToolIsAFailureNotACrash) {
    reclaim::ResetPlan plan = one_nvidia_gpu();
    reclaim::ResetAttempt attempt =
        reclaim::reset_group(plan, {0}, std::string("/nonexistent/nvidia-smi"));
    EXPECT_EQ(attempt.status.failure, ResetFailure::failed);
    EXPECT_NE(attempt.status.meaning.find("No such file"), std::string::npos)
        << attempt.status.meaning;
}

TEST(ResetExec, AmdgpuRecoveryIsARead) {
    TempDir dir;
    const std::string recover = (dir.path() / "amdgpu_gpu_recover").string();
    std::ofstream(recover) << "gpu recover\n";
    reclaim::ResetPlan plan;
    reclaim::ResetGpu gpu;
    gpu.index = 3;
    gpu.method = reclaim::ResetMethod::amdgpu_debugfs;
    gpu.amdgpu_recover_path = recover;
    plan.gpus = {gpu};
    reclaim::ResetAttempt attempt = reclaim::reset_group(plan, {3}, std::nullopt);
    EXPECT_EQ(attempt.status.failure, ResetFailure::none);
    EXPECT_EQ(attempt.command, (std::vector<std::string>{"read", recover}));
    EXPECT_EQ(attempt.output, "gpu recover\n");

    plan.gpus[0].amdgpu_recover_path = (dir.path() / "missing").string();
    EXPECT_EQ(reclaim::reset_group(plan, {3}, std::nullopt).status.failure,
              ResetFailure::unsupported);
}

}  // namespace
}  // namespace gpukill
