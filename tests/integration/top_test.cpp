// gpukill top in a real terminal: tmux (a private server per test) runs the monitor on a
// simulated host, send-keys presses keys, capture-pane reads the screen. The screen is
// matched by content (a PID on a line, words in a dialog), never by exact layout, and
// every wait is a bounded poll of capture-pane for a condition.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "audit_support.hpp"
#include "support.hpp"

namespace gpukill::testing {
namespace {

constexpr const char* kTmux = "/usr/bin/tmux";

std::string shell_quoted(const std::string& text) {
    std::string quoted = "'";
    for (char c : text) {
        if (c == '\'') {
            quoted += "'\\''";
        } else {
            quoted += c;
        }
    }
    return quoted + "'";
}

// The monitor on `host`, as `gpukill top ARGS` run by a shell that then reports how the
// monitor exited and how it left the terminal (stty), and waits.
std::string top_shell_command(const SimulatedHost& host, const std::vector<std::string>& args,
                              const std::map<std::string, std::string>& extra_env = {},
                              const std::string& as_user = "") {
    std::map<std::string, std::string> env = host.env();
    for (const auto& [key, value] : extra_env) env[key] = value;
    std::string command = as_user + "env";
    for (const auto& [key, value] : env) command += " " + key + "=" + shell_quoted(value);
    command += " " + std::string(GPUKILL_BIN) + " top";
    for (const std::string& arg : args) command += " " + shell_quoted(arg);
    return command +
           "; rc=$?; stty -a | tr '\\n' ' ' | sed 's/^/STTY: /'; echo; echo TOP-EXIT=$rc; "
           "exec cat";
}

class Tmux {
  public:
    Tmux(int width, int height, const std::string& command) {
        static std::atomic<int> counter{0};
        socket_ = "gpukill-top-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
        CommandResult started =
            tmux({"-f", "/dev/null", "new-session", "-d", "-s", "top", "-x", std::to_string(width),
                  "-y", std::to_string(height), "sh", "-c", command});
        if (started.exit_code != 0) throw std::runtime_error("tmux new-session: " + started.err);
    }
    ~Tmux() { tmux({"kill-server"}); }
    Tmux(const Tmux&) = delete;
    Tmux& operator=(const Tmux&) = delete;

    std::string screen() const { return tmux({"capture-pane", "-p", "-t", "top"}).out; }

    // Polls the screen until `ready` holds or `seconds` pass; the last screen either way.
    bool wait_for(const std::function<bool(const std::string&)>& ready, double seconds = 15) {
        const auto deadline = std::chrono::steady_clock::now() +
                              std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                  std::chrono::duration<double>(seconds));
        while (true) {
            last_ = screen();
            if (ready(last_)) return true;
            if (std::chrono::steady_clock::now() > deadline) return false;
            usleep(50'000);  // between polls of a bounded wait, not a guess at timing
        }
    }
    bool wait_for_text(const std::string& text, double seconds = 15) {
        return wait_for([&](const std::string& s) { return s.find(text) != std::string::npos; },
                        seconds);
    }
    const std::string& last() const { return last_; }

    void keys(const std::vector<std::string>& names) {
        std::vector<std::string> args = {"send-keys", "-t", "top"};
        args.insert(args.end(), names.begin(), names.end());
        tmux(args);
    }
    void type(const std::string& text) { tmux({"send-keys", "-t", "top", "-l", text}); }
    void resize(int width, int height) {
        tmux({"resize-window", "-t", "top", "-x", std::to_string(width), "-y",
              std::to_string(height)});
    }

  private:
    CommandResult tmux(const std::vector<std::string>& args) const {
        std::vector<std::string> argv = {kTmux, "-L", socket_};
        argv.insert(argv.end(), args.begin(), args.end());
        return run_command(argv, {}, 10);
    }
    std::string socket_;
    std::string last_;
};

std::vector<std::string> lines_of(const std::string& screen) {
    std::vector<std::string> lines;
    std::istringstream in(screen);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// The index of the first screen line showing `pid` as a whole word, or -1.
int line_with_pid(const std::string& screen, pid_t pid) {
    const std::vector<std::string> lines = lines_of(screen);
    const std::string word = std::to_string(pid);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        std::istringstream words(lines[i]);
        for (std::string w; words >> w;) {
            if (w == word) return static_cast<int>(i);
        }
    }
    return -1;
}

bool shows_pids(const std::string& screen, const std::vector<pid_t>& pids) {
    for (pid_t pid : pids) {
        if (line_with_pid(screen, pid) < 0) return false;
    }
    return true;
}

void require_tmux() {
    if (access(kTmux, X_OK) != 0) GTEST_SKIP() << "tmux is not installed (scripts/setup.sh)";
}

void quit_and_expect_terminal_restored(Tmux& tmux) {
    tmux.keys({"q"});
    ASSERT_TRUE(tmux.wait_for_text("TOP-EXIT=")) << tmux.last();
    EXPECT_NE(tmux.last().find("TOP-EXIT=0"), std::string::npos) << tmux.last();
    // Back in the shell's mode: line editing and echo on again.
    EXPECT_NE(tmux.last().find(" icanon "), std::string::npos) << tmux.last();
    EXPECT_NE(tmux.last().find(" echo "), std::string::npos) << tmux.last();
}

TEST(Top, LayoutAt80x24And200x50AndAResize) {
    require_tmux();
    SimulatedHost host;
    Workload job = host.run({"--gpu", "0", "--mem", "2G", "--name", "layout-job"});
    Tmux tmux(80, 24, top_shell_command(host, {"--interval", "0.3"}));
    ASSERT_TRUE(tmux.wait_for([&](const std::string& s) { return shows_pids(s, {job.pid()}); }))
        << tmux.last();
    const std::string small = tmux.last();
    for (const char* part : {"GPU 0", "MEM [", "PID", "USER", "SEEN BY", "q quit"}) {
        EXPECT_NE(small.find(part), std::string::npos) << part << "\n" << small;
    }
    EXPECT_EQ(lines_of(small).size(), 24u) << small;
    for (const std::string& line : lines_of(small)) EXPECT_LE(line.size(), 80u) << line;

    tmux.resize(200, 50);  // SIGWINCH: the wide columns appear
    ASSERT_TRUE(tmux.wait_for_text("CONTAINER")) << tmux.last();
    EXPECT_NE(tmux.last().find("layout-job"), std::string::npos) << tmux.last();
    EXPECT_NE(tmux.last().find("HOST-MEM"), std::string::npos) << tmux.last();
    EXPECT_GE(line_with_pid(tmux.last(), job.pid()), 0) << tmux.last();
    quit_and_expect_terminal_restored(tmux);
}

// Every holder is on screen in every frame while the row above it changes. A row exactly
// as wide as the terminal used to leave the cursor on the next line, where clearing the
// rest of the line wiped a row that, unchanged, was never drawn again (issue 33).
TEST(Top, EveryHolderStaysOnScreenWhileARowAboveItChanges) {
    require_tmux();
    SimulatedHost host;
    Workload steady = host.run({"--gpu", "0", "--mem", "2G", "--name", "steady-a"});
    Workload other = host.run({"--gpu", "1", "--mem", "1G", "--name", "steady-b"});
    // A holder whose CPU% differs from frame to frame: a busy shell holding a device file.
    const std::string node = host.env().at("GPUKILL_DEVFS") + "/nvidia0";
    RunningCommand busy(
        {"/bin/sh", "-c", "exec 3<'" + node + "'; echo opened; while :; do :; done"});
    ASSERT_EQ(busy.read_line(), "opened");
    const std::vector<pid_t> holders = {busy.pid(), steady.pid(), other.pid()};
    Tmux tmux(80, 24, top_shell_command(host, {"--interval", "0.3"}));
    ASSERT_TRUE(tmux.wait_for([&](const std::string& s) { return shows_pids(s, holders); }))
        << tmux.last();
    tmux.keys({"o", "c"});  // by CPU%: the busy row above the steady ones
    ASSERT_TRUE(tmux.wait_for([&](const std::string& s) {
        const int busy_at = line_with_pid(s, busy.pid());
        return busy_at >= 0 && busy_at < line_with_pid(s, steady.pid()) &&
               busy_at < line_with_pid(s, other.pid());
    })) << tmux.last();
    std::string previous = tmux.last();
    for (int frame = 0; frame < 20; ++frame) {
        // The next frame: the screen differs from the last one seen.
        ASSERT_TRUE(tmux.wait_for([&](const std::string& s) { return s != previous; }, 10))
            << "no new frame after frame " << frame << "\n"
            << previous;
        previous = tmux.last();
        EXPECT_TRUE(shows_pids(previous, holders)) << "frame " << frame << ":\n" << previous;
        EXPECT_NE(previous.find("util "), std::string::npos) << previous;
    }
    quit_and_expect_terminal_restored(tmux);
}

TEST(Top, SortAndFilterChangeTheRows) {
    require_tmux();
    SimulatedHost host;
    Workload small = host.run({"--gpu", "0", "--mem", "1G", "--name", "small-job"});
    Workload large = host.run({"--gpu", "1", "--mem", "3G", "--name", "large-job"});
    Tmux tmux(120, 30, top_shell_command(host, {"--interval", "0.3"}));
    ASSERT_TRUE(tmux.wait_for([&](const std::string& s) {
        return shows_pids(s, {small.pid(), large.pid()});
    })) << tmux.last();
    // GPU memory, high first: the 3G job above the 1G one.
    EXPECT_LT(line_with_pid(tmux.last(), large.pid()), line_with_pid(tmux.last(), small.pid()))
        << tmux.last();
    tmux.keys({"/"});  // reversed
    ASSERT_TRUE(tmux.wait_for([&](const std::string& s) {
        const int a = line_with_pid(s, small.pid()), b = line_with_pid(s, large.pid());
        return a >= 0 && b >= 0 && a < b;
    })) << tmux.last();

    tmux.keys({"f"});
    tmux.type("small-job");
    tmux.keys({"Enter"});
    ASSERT_TRUE(tmux.wait_for([&](const std::string& s) {
        return line_with_pid(s, small.pid()) >= 0 && line_with_pid(s, large.pid()) < 0;
    })) << tmux.last();
    EXPECT_NE(tmux.last().find("filter \"small-job\""), std::string::npos) << tmux.last();
    quit_and_expect_terminal_restored(tmux);
}

TEST(Top, TreeViewShowsWorkersUnderTheirParent) {
    require_tmux();
    SimulatedHost host;
    Workload job = host.run({"--gpu", "0", "--mem", "2G", "--workers", "2"});
    ASSERT_EQ(job.workers().size(), 2u);
    Tmux tmux(120, 30, top_shell_command(host, {"--interval", "0.3"}));
    std::vector<pid_t> all = job.workers();
    all.push_back(job.pid());
    ASSERT_TRUE(tmux.wait_for([&](const std::string& s) { return shows_pids(s, all); }))
        << tmux.last();
    tmux.keys({"t"});
    ASSERT_TRUE(tmux.wait_for_text("`- ")) << tmux.last();
    const std::vector<std::string> lines = lines_of(tmux.last());
    const int parent = line_with_pid(tmux.last(), job.pid());
    for (pid_t worker : job.workers()) {
        const int at = line_with_pid(tmux.last(), worker);
        EXPECT_GT(at, parent) << tmux.last();
        EXPECT_LE(at, parent + 2) << tmux.last();
        EXPECT_NE(lines[static_cast<std::size_t>(at)].find("`- "), std::string::npos) << lines[at];
    }
    quit_and_expect_terminal_restored(tmux);
}

void tag_by_filter(Tmux& tmux, pid_t pid) {
    tmux.keys({"f"});
    tmux.type(std::to_string(pid));
    tmux.keys({"Enter"});
    ASSERT_TRUE(tmux.wait_for_text("filter \"" + std::to_string(pid) + "\"")) << tmux.last();
    tmux.keys({"Space"});
    ASSERT_TRUE(tmux.wait_for([](const std::string& s) {
        return s.find("1 tagged") != std::string::npos || s.find("2 tagged") != std::string::npos;
    })) << tmux.last();
    tmux.keys({"f", "Escape"});  // the filter cleared; the tag stays
}

TEST(Top, TaggedOrphanedWorkersAreKilledAndTheMemoryComesBack) {
    require_tmux();
    SimulatedHost host;
    Workload job = host.run({"--gpu", "1", "--mem", "2G", "--workers", "2"});
    job.kill_parent();  // kill -9 "did nothing": the workers hold on
    Tmux tmux(120, 40, top_shell_command(host, {"--interval", "0.3"}));
    ASSERT_TRUE(tmux.wait_for([&](const std::string& s) { return shows_pids(s, job.workers()); }))
        << tmux.last();
    for (pid_t worker : job.workers()) tag_by_filter(tmux, worker);
    ASSERT_TRUE(tmux.wait_for_text("2 tagged")) << tmux.last();

    tmux.keys({"K"});
    ASSERT_TRUE(tmux.wait_for_text("Send SIGKILL to 2 processes?")) << tmux.last();
    for (pid_t worker : job.workers()) {
        EXPECT_NE(tmux.last().find("PID " + std::to_string(worker)), std::string::npos)
            << tmux.last();
        EXPECT_TRUE(process_alive(worker));  // nothing sent before the confirmation
    }
    EXPECT_NE(tmux.last().find(current_user_name()), std::string::npos) << tmux.last();
    tmux.keys({"y"});
    ASSERT_TRUE(tmux.wait_for_text("GPU 1: memory back")) << tmux.last();
    for (pid_t worker : job.workers()) EXPECT_FALSE(process_alive(worker)) << worker;

    // The engine's records, naming the monitor as the actor.
    std::ifstream log(host.env().at("GPUKILL_STATE_DIR") + "/audit.jsonl");
    bool signalled_by_top = false;
    for (std::string line; std::getline(log, line);) {
        const nlohmann::json record = nlohmann::json::parse(line);
        if (record["actor"]["interface"] == "top" && record["event"] == "signalled") {
            signalled_by_top = true;
        }
    }
    EXPECT_TRUE(signalled_by_top);
    tmux.keys({"Escape"});  // the result closes
    quit_and_expect_terminal_restored(tmux);
}

TEST(Top, ReadonlyRefusesEverySignal) {
    require_tmux();
    SimulatedHost host;
    Workload job = host.run({"--gpu", "0", "--mem", "1G"});
    Tmux tmux(100, 30, top_shell_command(host, {"--interval", "0.3", "--readonly"}));
    ASSERT_TRUE(tmux.wait_for([&](const std::string& s) { return shows_pids(s, {job.pid()}); }))
        << tmux.last();
    EXPECT_NE(tmux.last().find("[read-only]"), std::string::npos) << tmux.last();
    for (const char* key : {"K", "T", "I"}) {
        tmux.keys({key});
        ASSERT_TRUE(tmux.wait_for_text("read-only (--readonly)")) << tmux.last();
        EXPECT_EQ(tmux.last().find("Send SIG"), std::string::npos) << tmux.last();
        tmux.keys({"Down"});  // any key clears the message
    }
    EXPECT_TRUE(process_alive(job.pid()));
    quit_and_expect_terminal_restored(tmux);
}

TEST(Top, AnotherUsersProcessCannotBeSignalledWithoutRoot) {
    require_tmux();
    if (geteuid() != 0) GTEST_SKIP() << "needs root to run the monitor as another user";
    SimulatedHost host;
    open_host_to_all_users(host);
    Workload job = host.run({"--gpu", "0", "--mem", "1G"});  // root's
    // nobody's own state and configuration, not root's.
    const std::string own = host.root() + "/../nobody";
    std::filesystem::create_directories(own);
    ASSERT_EQ(chown(own.c_str(), kNobody, kNobody), 0);
    Tmux tmux(100, 30,
              top_shell_command(host, {"--interval", "0.3"},
                                {{"GPUKILL_STATE_DIR", own + "/state"},
                                 {"GPUKILL_CONFIG_DIR", own + "/config"},
                                 {"HOME", own}},
                                "setpriv --reuid=65534 --regid=65534 --clear-groups "));
    ASSERT_TRUE(tmux.wait_for([&](const std::string& s) { return shows_pids(s, {job.pid()}); }))
        << tmux.last();
    tmux.keys({"K"});
    ASSERT_TRUE(tmux.wait_for_text("only root may signal")) << tmux.last();
    EXPECT_EQ(tmux.last().find("Send SIG"), std::string::npos) << tmux.last();
    EXPECT_TRUE(process_alive(job.pid()));
    quit_and_expect_terminal_restored(tmux);
}

TEST(Top, NotATerminalFallsBackToTheWatchedList) {
    SimulatedHost host;
    Workload job = host.run({"--gpu", "0", "--mem", "1G"});
    std::map<std::string, std::string> env = host.env();
    RunningCommand top({GPUKILL_BIN, "top", "--interval", "0.2"}, env);
    bool saw = false;
    for (int i = 0; i < 40 && !saw; ++i) {
        auto line = top.read_line(10);
        if (!line) break;
        saw = line->find(std::to_string(job.pid())) != std::string::npos;
    }
    EXPECT_TRUE(saw);
    top.send_signal(SIGINT);
    EXPECT_EQ(top.wait(), 0);
}

}  // namespace
}  // namespace gpukill::testing
