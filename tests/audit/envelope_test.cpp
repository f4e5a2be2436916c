// The fields every record starts with, and the command line as it is recorded.
#include "audit/envelope.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "audit_test_support.hpp"

namespace gpukill::audit {
namespace {

using json = nlohmann::ordered_json;

// Sets a variable for one scope and puts back what was there (the suite may itself run
// under sudo).
class ScopedEnv {
  public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        ::setenv(name, value, 1);
    }
    ~ScopedEnv() {
        if (old_) {
            ::setenv(name_, old_->c_str(), 1);
        } else {
            ::unsetenv(name_);
        }
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

  private:
    const char* name_;
    std::optional<std::string> old_;
};

TEST(AuditEnvelope, HasEveryCommonFieldInOrder) {
    const auto when =
        std::chrono::system_clock::time_point(std::chrono::milliseconds(1764460201123));
    const json envelope = audit_envelope("signalled", audit_test::test_invocation(), when);
    const json expected = json::parse(R"({
        "schema_version": 1, "event": "signalled",
        "timestamp": "2025-11-29T23:50:01.123Z", "timestamp_unix_ms": 1764460201123,
        "host": "node7", "user": "root", "uid": 0, "euid": 0,
        "sudo_user": "alice", "sudo_uid": 1000, "gpukill_pid": 4000,
        "command": "gpukill kill --pid 4242 --force",
        "run_id": "0123456789abcdef0123456789abcdef",
        "actor": {"interface": "cli", "name": "root", "remote": null}})");
    EXPECT_EQ(envelope, expected);
    EXPECT_EQ(envelope.begin().key(), "schema_version");
}

TEST(AuditEnvelope, NamesAnActorThatIsNotTheCommandLine) {
    const Invocation who = invocation_for(
        Actor{.interface = Interface::agent, .name = "ci-runner", .remote = "10.0.0.7:40112"},
        "POST /v1/kill");
    const json envelope = audit_envelope("planned", who);
    EXPECT_EQ(envelope["actor"], json::parse(R"({"interface": "agent", "name": "ci-runner",
                                                  "remote": "10.0.0.7:40112"})"));
    EXPECT_EQ(envelope["command"], "POST /v1/kill");
    EXPECT_EQ(envelope["run_id"].get<std::string>().size(), 32u);
    EXPECT_EQ(envelope["gpukill_pid"], ::getpid());
}

TEST(AuditEnvelope, UnknownSudoFieldsAreNull) {
    Invocation who = audit_test::test_invocation();
    who.sudo_user.reset();
    who.sudo_uid.reset();
    const json envelope = audit_envelope("planned", who);
    EXPECT_TRUE(envelope["sudo_user"].is_null());
    EXPECT_TRUE(envelope["sudo_uid"].is_null());
}

TEST(ShellJoin, QuotesOnlyWhatAShellWouldSplitOrExpand) {
    EXPECT_EQ(shell_join({"gpukill", "kill", "--pid", "42", "--filter=py.*"}),
              "gpukill kill --pid 42 '--filter=py.*'");
    EXPECT_EQ(shell_join({"a b", "", "it's", "$HOME", "/usr/bin/x_1,2:3@%+="}),
              "'a b' '' 'it'\\''s' '$HOME' /usr/bin/x_1,2:3@%+=");
    EXPECT_EQ(shell_join({}), "");
}

TEST(CurrentInvocation, DescribesThisProcess) {
    const ScopedEnv sudo_user("SUDO_USER", "alice");
    const ScopedEnv sudo_uid("SUDO_UID", "1000");
    const Invocation who = current_invocation({"gpukill", "kill", "--pid", "7"});

    EXPECT_EQ(who.pid, ::getpid());
    EXPECT_EQ(who.uid, ::getuid());
    EXPECT_EQ(who.euid, ::geteuid());
    EXPECT_FALSE(who.user.empty());
    EXPECT_EQ(who.sudo_user, "alice");
    EXPECT_EQ(who.sudo_uid, 1000U);
    EXPECT_EQ(who.command, "gpukill kill --pid 7");
    EXPECT_EQ(who.run_id.size(), 32U);
    EXPECT_EQ(who.run_id.find_first_not_of("0123456789abcdef"), std::string::npos);
    EXPECT_NE(current_invocation({}).run_id, who.run_id);
}

TEST(CurrentInvocation, IgnoresAMalformedSudoUid) {
    const ScopedEnv sudo_uid("SUDO_UID", "10x");
    const Invocation who = current_invocation({});
    EXPECT_FALSE(who.sudo_uid.has_value());
}

}  // namespace
}  // namespace gpukill::audit
