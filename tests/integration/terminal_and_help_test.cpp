// A newcomer's first hour, at an 80-column terminal: every command explains itself
// (`gpukill CMD --help`, `gpukill help CMD`), tables fit the terminal and are never
// cut in a pipe, a failed --json command still prints one JSON document, and a
// missing guard policy says how to make one (`guard init`, which never overwrites).
// The terminal is real: util-linux `script` runs gpukill on a pseudo-terminal sized
// with stty.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "support.hpp"

namespace gpukill::testing {
namespace {

std::string shell_quoted(const std::string& word) {
    std::string out = "'";
    for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// gpukill's stdout on a terminal `columns` wide (lines end with \r\n there, undone
// here). Its stderr is left out: a diagnostic stays one line whatever the width, so
// that scripts and logs get it whole (README).
CommandResult on_terminal(const SimulatedHost& host, const std::vector<std::string>& args,
                          unsigned columns = 80) {
    std::string command =
        "stty cols " + std::to_string(columns) + " rows 40; exec " + shell_quoted(GPUKILL_BIN);
    for (const std::string& arg : args) command += " " + shell_quoted(arg);
    command += " 2>/dev/null";
    std::map<std::string, std::string> env = host.env();
    env["COLUMNS"] = "";  // the terminal's own width, not the test runner's
    CommandResult r = run_command({"/usr/bin/script", "-qec", command, "/dev/null"}, env);
    std::string clean;
    for (char c : r.out) {
        if (c != '\r') clean += c;
    }
    r.out = clean;
    return r;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

std::size_t columns_of(const std::string& line) {
    std::size_t count = 0;
    for (char c : line) count += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    return count;
}

void expect_fits(const std::string& text, std::size_t width, const std::string& what) {
    for (const std::string& line : lines_of(text)) {
        EXPECT_LE(columns_of(line), width) << what << ": " << line;
    }
}

const std::string kLongArgument = "--data=/datasets/imagenet/train/shards/with/a/long/path";

TEST(CommandHelp, EveryCommandExplainsItsOptionsExamplesAndExitCodes) {
    SimulatedHost host;
    for (const char* command : {"list", "kill", "reset", "audit", "guard", "doctor", "check"}) {
        CommandResult help = host.gpukill({command, "--help"});
        EXPECT_EQ(help.exit_code, 0) << command << ": " << help.err;
        EXPECT_EQ(help.err, "");
        EXPECT_NE(help.out.find(std::string("Usage: gpukill ") + command), std::string::npos)
            << help.out;
        EXPECT_NE(help.out.find("Examples:"), std::string::npos) << command;
        EXPECT_NE(help.out.find("Exit codes:"), std::string::npos) << command;
        EXPECT_EQ(host.gpukill({"help", command}).out, help.out) << command;
        expect_fits(help.out, 80, std::string(command) + " --help in a pipe");
    }
    EXPECT_NE(host.gpukill({"list", "--help"}).out.find("--details"), std::string::npos);
    EXPECT_NE(host.gpukill({"guard", "test", "--help"}).out.find("--snapshot FILE"),
              std::string::npos);
    EXPECT_NE(host.gpukill({"--kill", "--help"}).out.find("Usage: gpukill kill"),
              std::string::npos);
    CommandResult unknown = host.gpukill({"help", "lsit"});
    EXPECT_EQ(unknown.exit_code, 3);
    EXPECT_EQ(unknown.err, "gpukill: unknown command 'lsit'; did you mean 'list'?\n");
}

TEST(TerminalWidth, TablesFitTheTerminalAndPipesGetEveryCharacter) {
    SimulatedHost host;
    Workload job = host.run({"--gpu", "1", "--mem", "2G", "--workers", "2", "--name", "python",
                             "--", "train.py", kLongArgument});
    host.leak(1, "4G");  // a note line about memory nobody accounts for

    CommandResult narrow = on_terminal(host, {"list", "--details"});
    ASSERT_EQ(narrow.exit_code, 0) << narrow.out;
    expect_fits(narrow.out, 80, "list --details at 80 columns");
    EXPECT_NE(narrow.out.find("…"), std::string::npos) << "the COMMAND column is cut";
    EXPECT_NE(narrow.out.find(std::to_string(job.pid())), std::string::npos);

    CommandResult wider = on_terminal(host, {"list", "--details"}, 400);
    EXPECT_NE(wider.out.find(kLongArgument), std::string::npos) << wider.out;

    CommandResult wide = on_terminal(host, {"list", "--details", "--wide"});
    EXPECT_NE(wide.out.find(kLongArgument), std::string::npos) << "--wide cuts nothing";

    CommandResult piped = host.gpukill({"list", "--details"});
    EXPECT_NE(piped.out.find(kLongArgument), std::string::npos) << "a pipe is never cut";
    EXPECT_EQ(piped.out.find("…"), std::string::npos);

    CommandResult plan = on_terminal(host, {"kill", "--gpu", "1", "--dry-run"});
    expect_fits(plan.out, 80, "kill --dry-run at 80 columns");
    EXPECT_TRUE(process_alive(job.pid()));
}

TEST(JsonOnFailure, AFailedJsonCommandStillPrintsOneDocumentWithTheError) {
    SimulatedHost host;
    CommandResult bad_gpu = host.gpukill({"list", "--json", "--gpu", "9"});
    EXPECT_EQ(bad_gpu.exit_code, 3);
    EXPECT_EQ(bad_gpu.err.rfind("gpukill: ", 0), 0u) << bad_gpu.err;
    const auto doc = nlohmann::json::parse(bad_gpu.out);
    EXPECT_EQ(doc["schema_version"], 1);
    EXPECT_EQ(doc["error"]["exit_code"], 3);
    EXPECT_NE(doc["error"]["message"].get<std::string>().find("9"), std::string::npos) << doc;

    CommandResult bad_option = host.gpukill({"list", "--json", "--bogus"});
    EXPECT_EQ(bad_option.exit_code, 3);
    EXPECT_EQ(nlohmann::json::parse(bad_option.out)["error"]["exit_code"], 3);

    CommandResult watch = host.gpukill({"list", "--watch", "--json", "--gpu", "9"});
    EXPECT_EQ(watch.exit_code, 3);
    EXPECT_EQ(watch.out.find('\n'), watch.out.size() - 1) << "JSON Lines: one line";
    EXPECT_EQ(nlohmann::json::parse(watch.out)["error"]["exit_code"], 3);

    CommandResult fine = host.gpukill({"list", "--gpu", "9"});
    EXPECT_EQ(fine.out, "") << "without --json stdout stays empty on an error";
}

TEST(GuardInit, WritesAStarterPolicyInDryRunAndNeverOverwrites) {
    SimulatedHost host;
    const std::string config = host.root() + "/config-init";
    const std::map<std::string, std::string> env = {{"GPUKILL_CONFIG_DIR", config}};
    CommandResult missing = host.gpukill({"guard", "test"}, env);
    EXPECT_EQ(missing.exit_code, 1);
    EXPECT_NE(missing.err.find("gpukill guard init"), std::string::npos) << missing.err;
    CommandResult compat = host.gpukill({"--guard"}, env);
    EXPECT_EQ(compat.exit_code, 1);
    EXPECT_NE(compat.err.find("gpukill guard init"), std::string::npos) << compat.err;

    CommandResult init = host.gpukill({"guard", "init"}, env);
    ASSERT_EQ(init.exit_code, 0) << init.err;
    const std::string path = config + "/guard.yaml";
    CommandResult check = host.gpukill({"guard", "check", path}, env);
    EXPECT_EQ(check.exit_code, 0) << check.err;
    EXPECT_NE(check.out.find("mode dry-run"), std::string::npos) << check.out;

    { std::ofstream(path, std::ios::app) << "# mine\n"; }
    CommandResult again = host.gpukill({"guard", "init"}, env);
    EXPECT_EQ(again.exit_code, 1);
    EXPECT_NE(again.err.find("exists"), std::string::npos) << again.err;
    std::ifstream kept(path);
    std::stringstream text;
    text << kept.rdbuf();
    EXPECT_NE(text.str().find("# mine\n"), std::string::npos) << "the file is untouched";

    CommandResult test = host.gpukill({"guard", "test"}, env);
    EXPECT_EQ(test.exit_code, 0) << test.err;
}

// The README's commands, as a newcomer types them at an 80-column terminal: nothing
// wider than 80; in a pipe, every stderr line is a "gpukill:" diagnostic and every
// --json output parses.
TEST(FirstContactWalk, ReadmeCommandsFitEightyColumnsAndKeepStdoutClean) {
    SimulatedHost host;
    Workload trainer = host.run(
        {"--gpu", "0", "--mem", "3G", "--name", "python", "--", "train.py", kLongArgument});
    Workload orphans = host.run({"--gpu", "1", "--mem", "1G", "--workers", "2"});
    const std::string pid = std::to_string(trainer.pid());
    const std::string policy = host.root() + "/walk-guard.yaml";
    const std::vector<std::vector<std::string>> commands = {
        {"guard", "init", "--policy", policy},
        {"list"},
        {"list", "--details"},
        {"doctor"},
        {"kill", "--pid", pid, "--dry-run"},
        {"kill", "--gpu", "1", "--orphaned"},
        {"audit"},
        {"audit", "--audit-summary"},
        {"audit", "--actions"},
        {"audit", "--rogue"},
        {"audit", "--rogue-config"},
        {"check"},
        {"guard", "test", "--policy", policy},
        {"--help"},
        {"kill", "--help"},
    };
    for (const auto& command : commands) {
        std::string what;
        for (const std::string& word : command) what += word + " ";
        CommandResult terminal = on_terminal(host, command);
        EXPECT_NE(terminal.exit_code, 127) << what;
        EXPECT_FALSE(terminal.out.empty()) << what;
        expect_fits(terminal.out, 80, what);
        CommandResult piped = host.gpukill(command);
        for (const std::string& line : lines_of(piped.err)) {
            EXPECT_EQ(line.rfind("gpukill: ", 0), 0u) << what << "stderr: " << line;
        }
    }
    for (const auto& command :
         std::vector<std::vector<std::string>>{{"list", "--json"},
                                               {"kill", "--pid", pid, "--dry-run", "--json"},
                                               {"kill", "--pid", "1", "--json"},
                                               {"audit", "--json"},
                                               {"audit", "--rogue", "--json"},
                                               {"check", "--json"},
                                               {"doctor", "--json"},
                                               {"reset", "--gpu", "7", "--json"}}) {
        CommandResult piped = host.gpukill(command);
        EXPECT_TRUE(nlohmann::json::accept(piped.out)) << command[0] << ": " << piped.out;
    }
    EXPECT_TRUE(process_alive(trainer.pid()));
    EXPECT_TRUE(process_alive(orphans.pid()));
}

}  // namespace
}  // namespace gpukill::testing
