// gpusim as nvidia-smi (DIR/bin/nvidia-smi): the reset path's checks, messages and return
// codes, and the scenario keys that drive it (architecture, nvlinks, failures.reset).
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <array>
#include <cerrno>
#include <filesystem>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "sim_harness.hpp"
#include "workload_guard.hpp"

namespace {

namespace fs = std::filesystem;
using gpusim_test::CommandResult;
using gpusim_test::gpusim;
using gpusim_test::init_root;
using gpusim_test::TempDir;

// Runs `program` with exactly `env` (nothing inherited), stdout and stderr merged into out.
CommandResult run(const std::string& program, const std::vector<std::string>& args,
                  const std::map<std::string, std::string>& env,
                  std::optional<uid_t> as_uid = std::nullopt) {
    std::array<int, 2> out{};
    if (::pipe2(out.data(), O_CLOEXEC) != 0) throw std::runtime_error("pipe");
    std::vector<std::string> argv_text{program};
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& arg : argv_text) argv.push_back(arg.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_text;
    for (const auto& [key, value] : env) env_text.push_back(key + "=" + value);
    std::vector<char*> envp;
    for (std::string& entry : env_text) envp.push_back(entry.data());
    envp.push_back(nullptr);
    const pid_t child = ::fork();
    if (child < 0) throw std::runtime_error("fork");
    if (child == 0) {
        ::dup2(out[1], STDOUT_FILENO);
        ::dup2(out[1], STDERR_FILENO);
        if (as_uid && (::setgid(*as_uid) != 0 || ::setuid(*as_uid) != 0)) ::_exit(126);
        ::execve(argv[0], argv.data(), envp.data());
        ::_exit(127);
    }
    ::close(out[1]);
    CommandResult result;
    std::array<char, 4096> buffer{};
    while (true) {
        pollfd p{out[0], POLLIN, 0};
        if (::poll(&p, 1, 20000) <= 0) break;
        const ssize_t got = ::read(out[0], buffer.data(), buffer.size());
        if (got > 0) {
            result.out.append(buffer.data(), static_cast<std::size_t>(got));
        } else if (got == 0 || errno != EINTR) {
            break;
        }
    }
    ::close(out[0]);
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

class NvidiaSmiTest : public ::testing::Test {
  protected:
    void start(const std::string& scenario = {}) {
        root_ = dir_ / "host";
        ASSERT_NO_FATAL_FAILURE(init_root(root_, scenario));
    }
    std::string smi() const { return (root_ / "bin" / "nvidia-smi").string(); }
    std::map<std::string, std::string> env() const { return {{"GPUSIM_ROOT", root_.string()}}; }
    CommandResult reset(const std::vector<std::string>& args) const {
        std::vector<std::string> full{"-r"};
        full.insert(full.end(), args.begin(), args.end());
        return run(smi(), full, env());
    }
    unsigned long long used(unsigned gpu) const {
        const auto status = gpusim({"status", "--root", root_.string(), "--json"});
        return nlohmann::json::parse(status.out)["gpus"][gpu]["memory_used_bytes"];
    }
    std::string root_arg() const { return root_.string(); }

    TempDir dir_;
    fs::path root_;
};

TEST_F(NvidiaSmiTest, InitLinksItAndEnvPointsGpukillAtIt) {
    start();
    EXPECT_TRUE(fs::is_symlink(smi()));
    EXPECT_EQ(fs::canonical(smi()), fs::canonical(GPUSIM_BIN));
    const auto env = gpusim({"env", "--root", root_arg()});
    EXPECT_NE(env.out.find("export GPUKILL_NVIDIA_SMI='" + smi() + "'"), std::string::npos)
        << env.out;
    ASSERT_EQ(gpusim({"init", "--root", root_arg(), "--force"}).exit_code, 0);
    EXPECT_TRUE(fs::is_symlink(smi()));
}

TEST_F(NvidiaSmiTest, AResetClearsLeaksAndSaysSo) {
    start();
    ASSERT_EQ(gpusim({"leak", "--root", root_arg(), "--gpu", "0", "--mem", "2G"}).exit_code, 0);
    ASSERT_EQ(gpusim({"leak", "--root", root_arg(), "--gpu", "1", "--mem", "1G"}).exit_code, 0);
    const auto result = reset({"-i", "0"});
    EXPECT_EQ(result.exit_code, 0) << result.out;
    EXPECT_EQ(result.out, "GPU 00000000:18:00.0 was successfully reset.\n");
    EXPECT_EQ(used(0), 0U);
    EXPECT_EQ(used(1), 1ULL << 30);
    // Without -i every GPU is reset, as nvidia-smi does.
    EXPECT_EQ(reset({}).exit_code, 0);
    EXPECT_EQ(used(1), 0U);
}

TEST_F(NvidiaSmiTest, RefusesWhileAWorkloadHoldsTheGpu) {
    start();
    {
        gpusim_test::Workload workload({"--root", root_arg(), "--gpu", "0", "--mem", "1G"});
        ASSERT_TRUE(workload.ready()) << workload.failure_text();
        const auto result = reset({"-i", "0"});
        EXPECT_EQ(result.exit_code, 255) << result.out;
        EXPECT_NE(result.out.find("GPU 00000000:18:00.0: In use by another client"),
                  std::string::npos)
            << result.out;
        EXPECT_NE(result.out.find("1 device is currently being used"), std::string::npos);
        EXPECT_EQ(used(0), 1ULL << 30);
    }
    EXPECT_EQ(reset({"-i", "0"}).exit_code, 0);
}

TEST_F(NvidiaSmiTest, AnyOpenDeviceFileCountsAsAClient) {
    start();
    const int fd = ::open((root_ / "dev" / "nvidia1").c_str(), O_RDWR | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    EXPECT_EQ(reset({"-i", "1"}).exit_code, 255);
    EXPECT_EQ(reset({"-i", "0"}).exit_code, 0);  // another GPU's file is not this one
    ::close(fd);
    EXPECT_EQ(reset({"-i", "1"}).exit_code, 0);
}

// A mapping keeps the driver's file, and so its client, alive after the descriptor closes.
TEST_F(NvidiaSmiTest, AMappingOfTheDeviceFileCountsAsAClient) {
    start();
    const int fd = ::open((root_ / "dev" / "nvidia1").c_str(), O_RDWR | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    void* mapping = ::mmap(nullptr, 4096, PROT_READ, MAP_SHARED, fd, 0);
    ::close(fd);
    ASSERT_NE(mapping, MAP_FAILED);
    EXPECT_EQ(reset({"-i", "1"}).exit_code, 255);
    ::munmap(mapping, 4096);
    EXPECT_EQ(reset({"-i", "1"}).exit_code, 0);
}

TEST_F(NvidiaSmiTest, GpusAreNamedByIndexBusIdOrUuid) {
    start();
    EXPECT_EQ(reset({"-i", "00000000:2A:00.0"}).exit_code, 0);
    EXPECT_EQ(reset({"-i", "0000:2a:00.0"}).exit_code, 0);
    EXPECT_EQ(reset({"--id=1"}).exit_code, 0);
    const auto status = gpusim({"status", "--root", root_arg(), "--json"});
    const std::string uuid = nlohmann::json::parse(status.out)["gpus"][0]["uuid"];
    EXPECT_EQ(reset({"-i", uuid}).exit_code, 0);
    const auto missing = reset({"-i", "7"});
    EXPECT_EQ(missing.exit_code, 6);
    EXPECT_EQ(missing.out, "No devices were found\n");
}

TEST_F(NvidiaSmiTest, ScenarioFailuresGiveTheDocumentedCodes) {
    start(
        "gpus:\n  - failures:\n      reset: not_supported\n  - failures:\n      lost: true\n"
        "  - failures:\n      reset: unknown\n");
    const auto unsupported = reset({"-i", "0"});
    EXPECT_EQ(unsupported.exit_code, 3);
    EXPECT_NE(unsupported.out.find("Not Supported"), std::string::npos);
    const auto lost = reset({"-i", "1"});
    EXPECT_EQ(lost.exit_code, 15);
    EXPECT_NE(lost.out.find("GPU is lost"), std::string::npos);
    EXPECT_EQ(reset({"-i", "2"}).exit_code, 255);
}

TEST_F(NvidiaSmiTest, OnlyRootMayReset) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to run it as another user";
    start();
    ASSERT_EQ(::chmod(dir_.path().c_str(), 0755), 0);
    ASSERT_EQ(gpusim({"leak", "--root", root_arg(), "--gpu", "0", "--mem", "1G"}).exit_code, 0);
    const auto result = run(smi(), {"-r", "-i", "0"}, env(), 65534);
    EXPECT_EQ(result.exit_code, 4) << result.out;
    EXPECT_NE(result.out.find("Insufficient Permissions"), std::string::npos);
    EXPECT_EQ(used(0), 1ULL << 30);
}

TEST_F(NvidiaSmiTest, FindsItsHostFromItsOwnLocationOrSaysThereIsNoDriver) {
    start();
    EXPECT_EQ(run(smi(), {"-r", "-i", "0"}, {}).exit_code, 0);  // no GPUSIM_ROOT
    const fs::path elsewhere = dir_ / "nvidia-smi";
    fs::create_symlink(GPUSIM_BIN, elsewhere);
    const auto none = run(elsewhere.string(), {"-r"}, {});
    EXPECT_EQ(none.exit_code, 9);
    EXPECT_NE(none.out.find("couldn't communicate with the NVIDIA driver"), std::string::npos);
}

TEST_F(NvidiaSmiTest, AnythingButResetIsAnInvalidArgument) {
    start();
    EXPECT_EQ(run(smi(), {"-q"}, env()).exit_code, 2);
    EXPECT_EQ(run(smi(), {}, env()).exit_code, 2);
    EXPECT_EQ(run(smi(), {"-r", "-i"}, env()).exit_code, 2);
}

TEST_F(NvidiaSmiTest, PreAmpereNvlinkPeersMustBeInTheSameCommand) {
    start(
        "gpus:\n  - architecture: volta\n    nvlinks: [1, \"0000:c1:00.0\"]\n"
        "  - architecture: volta\n    nvlinks: [0]\n"
        "  - architecture: volta\n    nvlinks: [\"0000:c1:00.0\"]\n");
    const auto alone = reset({"-i", "1"});
    EXPECT_EQ(alone.exit_code, 255) << alone.out;
    EXPECT_NE(alone.out.find("00000000:18:00.0"), std::string::npos) << alone.out;
    // GPU 2 shares the NVSwitch at c1:00.0 with GPU 0: the whole fabric resets together.
    EXPECT_NE(alone.out.find("00000000:3A:00.0"), std::string::npos) << alone.out;
    EXPECT_EQ(reset({"-i", "0,1,2"}).exit_code, 0);
}

TEST_F(NvidiaSmiTest, NvlinkScenarioMistakesAreCaughtAtInit) {
    const auto check = [&](const std::string& yaml, const std::string& expected) {
        TempDir dir;
        gpusim_test::write_text(dir / "s.yaml", yaml);
        const auto result = gpusim(
            {"init", "--root", (dir / "host").string(), "--scenario", (dir / "s.yaml").string()});
        EXPECT_EQ(result.exit_code, 3) << yaml;
        EXPECT_NE(result.err.find(expected), std::string::npos) << result.err;
    };
    check("gpus:\n  - nvlinks: [1]\n  - {}\n", "does not list as many links back");
    check("gpus:\n  - nvlinks: [0]\n", "cannot be linked to itself");
    check("gpus:\n  - nvlinks: [5]\n", "no GPU 5");
    check("gpus:\n  - architecture: fermi\n", "expected an architecture");
}

}  // namespace
