// Protected programs are matched by what their user cannot choose (issue 29, item 11):
// the executable's file and the files mapped executable, root's, under directories only
// root may write, in gpukill's own user namespace. A job that names itself Xorg is an
// ordinary job: the guard's limits apply to it and `kill --pid` plans it. Real processes:
// gpusim copies run as uid 65534, /usr/bin/sleep with and without a user's preload.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "host/proc_reader.hpp"
#include "reclaim/system_program.hpp"
#include "support.hpp"

namespace gpukill::testing {
namespace {
// Its own names: unity batches join this file with others that have helpers of the same.
namespace protected_programs {

namespace fs = std::filesystem;

constexpr uid_t kNobody = 65534;

// A directory the test makes and removes, under `parent`, mode 0755 (uid 65534 runs what
// it holds).
class TestDirectory {
  public:
    explicit TestDirectory(const std::string& parent) {
        std::string pattern = parent + "/gpukill-protected-XXXXXX";
        if (mkdtemp(pattern.data()) == nullptr) return;
        path_ = pattern;
        fs::permissions(path_, fs::perms::owner_all | fs::perms::group_read |
                                   fs::perms::group_exec | fs::perms::others_read |
                                   fs::perms::others_exec);
    }
    ~TestDirectory() {
        std::error_code ignored;
        if (!path_.empty()) fs::remove_all(path_, ignored);
    }
    TestDirectory(const TestDirectory&) = delete;
    TestDirectory& operator=(const TestDirectory&) = delete;
    const std::string& path() const { return path_; }

    // A copy of `program` named `name` here, mode 0755, owned by `owner`.
    std::string copy(const std::string& program, const std::string& name, uid_t owner = 0) const {
        const std::string to = path_ + "/" + name;
        fs::copy_file(program, to, fs::copy_options::overwrite_existing);
        fs::permissions(to, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                fs::perms::others_read | fs::perms::others_exec);
        if (chown(to.c_str(), owner, owner) != 0) throw std::runtime_error("chown " + to);
        return to;
    }

  private:
    std::string path_;
};

// Whether `path` and every directory above it are root's and writable by no one else:
// where a copy of gpusim is a system program.
bool root_controls(const fs::path& path) {
    for (fs::path at = path;; at = at.parent_path()) {
        struct stat st {};
        if (::stat(at.c_str(), &st) != 0 || st.st_uid != 0 || (st.st_mode & 022) != 0) {
            return false;
        }
        if (at == at.root_path()) return true;
    }
}

std::vector<std::string> as_nobody() {
    return {"/usr/bin/setpriv", "--reuid=" + std::to_string(kNobody),
            "--regid=" + std::to_string(kNobody), "--clear-groups"};
}

struct Files {
    explicit Files(const SimulatedHost& host) : dir(fs::path(host.root()).parent_path().string()) {
        fs::create_directories(dir + "/config");
    }
    std::string write(const std::string& name, const std::string& text) const {
        std::ofstream(dir + "/" + name) << text;
        return dir + "/" + name;
    }
    std::map<std::string, std::string> env() const {
        return {{"GPUKILL_STATE_DIR", dir + "/state"}, {"GPUKILL_CONFIG_DIR", dir + "/config"}};
    }
    std::string dir;
};

// nobody may hold 1G; the guard terminates at once.
const char* const kPolicy =
    "mode: enforce\nusers:\n  nobody:\n    memory_limit: 1G\n    action: terminate\n"
    "    grace_period: 0s\n";

const nlohmann::json* target_of(const nlohmann::json& doc, pid_t pid) {
    for (const auto& t : doc["targets"]) {
        if (t["pid"] == pid) return &t;
    }
    return nullptr;
}

// The adversarial run's case: gpusim copied to a directory of the user's own as "Xorg"
// and run as nobody with the name Xorg. Both what comm says and the executable's file name
// say Xorg, and the built-in list protects Xorg; neither counts.
TEST(ProtectedPrograms, AJobNamedXorgFromAUsersCopyIsPlannedAndEnforced) {
    if (geteuid() != 0) GTEST_SKIP() << "needs root: the job runs as uid 65534";
    SimulatedHost host;
    open_host_to_all_users(host);
    Files files(host);
    TestDirectory users("/tmp");
    ASSERT_FALSE(users.path().empty());
    ASSERT_EQ(chown(users.path().c_str(), kNobody, kNobody), 0);
    const std::string fake = users.copy(GPUSIM_BIN, "Xorg", kNobody);
    Workload job =
        host.run_program_via(as_nobody(), fake, {"--gpu", "0", "--mem", "3G", "--name", "Xorg"});

    CommandResult plan = host.gpukill(
        {"kill", "--pid", std::to_string(job.pid()), "--dry-run", "--json"}, files.env());
    ASSERT_EQ(plan.exit_code, 0) << plan.err << plan.out;
    const nlohmann::json doc = nlohmann::json::parse(plan.out);
    const nlohmann::json* planned = target_of(doc, job.pid());
    ASSERT_NE(planned, nullptr) << plan.out;
    EXPECT_NE((*planned)["outcome"], "refused") << plan.out;
    EXPECT_TRUE(process_alive(job.pid()));

    const std::string policy = files.write("guard.yaml", kPolicy);
    CommandResult guard = host.gpukill({"guard", "run", "--once", "--policy", policy}, files.env());
    ASSERT_EQ(guard.exit_code, 0) << guard.err << guard.out;
    EXPECT_NE(guard.out.find("terminate PID " + std::to_string(job.pid())), std::string::npos)
        << guard.out;
    EXPECT_FALSE(process_alive(job.pid())) << guard.out;
}

// The same copy of gpusim placed by root where only root writes is a system program: the
// built-in list's Xorg protects it from kill and from the guard. (A real Xorg is exactly
// this: root's file under root's directories.)
TEST(ProtectedPrograms, TheSameProgramPlacedByRootIsProtected) {
    if (geteuid() != 0) GTEST_SKIP() << "needs root: the job runs as uid 65534";
    if (!root_controls("/run")) GTEST_SKIP() << "/run is not root's alone here";
    SimulatedHost host;
    open_host_to_all_users(host);
    Files files(host);
    TestDirectory system("/run");
    ASSERT_FALSE(system.path().empty());
    const std::string xorg = system.copy(GPUSIM_BIN, "Xorg");
    Workload job =
        host.run_program_via(as_nobody(), xorg, {"--gpu", "0", "--mem", "3G", "--name", "Xorg"});

    CommandResult plan = host.gpukill(
        {"kill", "--pid", std::to_string(job.pid()), "--dry-run", "--json"}, files.env());
    EXPECT_EQ(plan.exit_code, 3) << plan.err << plan.out;
    const nlohmann::json doc = nlohmann::json::parse(plan.out);
    const nlohmann::json* refused = target_of(doc, job.pid());
    ASSERT_NE(refused, nullptr) << plan.out;
    EXPECT_EQ((*refused)["refusal"], "protected_process") << plan.out;

    const std::string policy = files.write("guard.yaml", kPolicy);
    CommandResult guard = host.gpukill({"guard", "run", "--once", "--policy", policy}, files.env());
    ASSERT_EQ(guard.exit_code, 0) << guard.err << guard.out;
    EXPECT_TRUE(process_alive(job.pid())) << guard.out;

    // An entry that names an owner protects the program for that account alone.
    std::ofstream(files.dir + "/config/protected.yaml")
        << "replace_defaults: true\nnames:\n  - {path: " << xorg << ", user: root}\n";
    CommandResult owned = host.gpukill(
        {"kill", "--pid", std::to_string(job.pid()), "--dry-run", "--json"}, files.env());
    EXPECT_EQ(owned.exit_code, 0) << owned.err << owned.out;
    std::ofstream(files.dir + "/config/protected.yaml")
        << "replace_defaults: true\nnames:\n  - {path: " << xorg << ", user: nobody}\n";
    CommandResult nobodys = host.gpukill(
        {"kill", "--pid", std::to_string(job.pid()), "--dry-run", "--json"}, files.env());
    EXPECT_EQ(nobodys.exit_code, 3) << nobodys.err << nobodys.out;
}

// A process of ours, started from argv, once it runs `program` (its exe link names it):
// the exec is done, so what it maps is what the rule sees.
class Started {
  public:
    Started(const std::vector<std::string>& argv, const std::string& program,
            const std::map<std::string, std::string>& env = {})
        : command_(argv, env) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        const std::string exe = "/proc/" + std::to_string(command_.pid()) + "/exe";
        while (std::chrono::steady_clock::now() < deadline) {
            std::error_code error;
            if (fs::read_symlink(exe, error) == fs::path(program)) {
                // The loader has mapped the libraries before main: wait for sleep's own
                // state, S (asleep), which it reaches only after.
                std::ifstream stat("/proc/" + std::to_string(command_.pid()) + "/stat");
                std::string text((std::istreambuf_iterator<char>(stat)), {});
                const auto close = text.rfind(')');
                if (close != std::string::npos && text.size() > close + 2 &&
                    text[close + 2] == 'S') {
                    ready_ = true;
                    return;
                }
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    }
    pid_t pid() const { return command_.pid(); }
    bool ready() const { return ready_; }

  private:
    RunningCommand command_;
    bool ready_ = false;
};

std::optional<std::string> system_program_problem(pid_t pid) {
    auto files = read_program_files(HostRoots{}, pid);
    if (!files) return "unreadable: " + files.error().what;
    return reclaim::not_system_program(*files);
}

bool found_as_system_program(pid_t pid) {
    auto info = read_process(HostRoots{}, pid);
    if (!info) return false;
    return reclaim::find_system_programs(HostRoots{}, {&*info}, {"sleep"})
        .contains({pid, info->start_time_ticks});
}

// The path of a library this test itself maps (libm, through libstdc++): a harmless one
// to preload.
std::optional<std::string> mapped_libm() {
    std::ifstream maps("/proc/self/maps");
    for (std::string line; std::getline(maps, line);) {
        const auto slash = line.find('/');
        if (slash != std::string::npos && line.find("/libm.so") != std::string::npos) {
            return line.substr(slash);
        }
    }
    return std::nullopt;
}

TEST(ProtectedPrograms, TheRuleOnRealProcesses) {
    const std::string sleep = fs::canonical("/usr/bin/sleep").string();
    if (!root_controls(fs::path(sleep).parent_path())) {
        GTEST_SKIP() << sleep << " is not under root's directories here";
    }
    Started system({sleep, "60"}, sleep);
    ASSERT_TRUE(system.ready());
    EXPECT_EQ(system_program_problem(system.pid()), std::nullopt);
    EXPECT_TRUE(found_as_system_program(system.pid()));

    // The same file copied where anyone may write (/tmp) is not one, whoever owns it.
    if (root_controls("/tmp")) GTEST_SKIP() << "/tmp is root's alone here";
    TestDirectory users("/tmp");
    const std::string copy = users.copy(sleep, "sleep");
    Started copied({copy, "60"}, copy);
    ASSERT_TRUE(copied.ready());
    const auto problem = system_program_problem(copied.pid());
    ASSERT_TRUE(problem);
    EXPECT_NE(problem->find("is writable by others"), std::string::npos) << *problem;
    EXPECT_FALSE(found_as_system_program(copied.pid()));

    // The system binary with a library of the user's preloaded maps that library.
    const auto libm = mapped_libm();
    ASSERT_TRUE(libm);
    const std::string preload = users.copy(*libm, "libhook.so");
    Started preloaded({sleep, "60"}, sleep, {{"LD_PRELOAD", preload}});
    ASSERT_TRUE(preloaded.ready());
    const auto mapped = system_program_problem(preloaded.pid());
    ASSERT_TRUE(mapped);
    EXPECT_NE(mapped->find("it maps \"" + preload + "\""), std::string::npos) << *mapped;
    EXPECT_FALSE(found_as_system_program(preloaded.pid()));

    // In a user namespace of its own a user could have bound any of root's files there.
    Started unshared({"/usr/bin/unshare", "--user", "--map-root-user", sleep, "60"}, sleep);
    if (!unshared.ready()) GTEST_SKIP() << "no user namespaces here";
    EXPECT_EQ(system_program_problem(unshared.pid()),
              "it runs in a user namespace of its own, whose mounts its user controls");
    EXPECT_FALSE(found_as_system_program(unshared.pid()));
}

}  // namespace protected_programs
}  // namespace
}  // namespace gpukill::testing
