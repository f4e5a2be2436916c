// Editing guard.yaml for the compatible flags: only the changed lines move, comments
// stay, and the result loads.
#include "guard/policy_edit.hpp"

#include <gtest/gtest.h>

#include "guard/policy_yaml.hpp"

namespace gpukill::guard {
namespace {

const char* kPolicy = R"(# site policy
mode: dry-run   # start safe

users:
  # the interns' lead
  alice:
    memory_limit: 8G
    max_processes: 2
  # bob shares GPU 0
  bob: {memory_limit: 4G}

rules: []
)";

TEST(PolicyEdit, ModeIsReplacedInPlace) {
    auto text = set_mode(kPolicy, Mode::enforce);
    ASSERT_TRUE(text) << text.error().what;
    EXPECT_EQ(*text,
              std::string(kPolicy).replace(std::string(kPolicy).find("dry-run"), 7, "enforce"));
    auto added = set_mode("# only a comment\nusers: {}\n", Mode::off);
    ASSERT_TRUE(added);
    EXPECT_EQ(*added, "# only a comment\nmode: off\nusers: {}\n");
    EXPECT_EQ(*set_mode("", Mode::dry_run), "mode: dry-run\n");
}

TEST(PolicyEdit, AnEntryIsReplacedKeepingTheCommentsAroundIt) {
    auto text = set_entry(kPolicy, "users", "alice", "{memory_limit: 16G}");
    ASSERT_TRUE(text) << text.error().what;
    EXPECT_EQ(*text, R"(# site policy
mode: dry-run   # start safe

users:
  # the interns' lead
  alice: {memory_limit: 16G}
  # bob shares GPU 0
  bob: {memory_limit: 4G}

rules: []
)");
    auto policy = parse_policy(*text, "guard.yaml");
    ASSERT_TRUE(policy) << policy.error().what;
    EXPECT_EQ(policy->users[0].limits.memory_bytes, 16ULL << 30);
}

TEST(PolicyEdit, NewEntriesAndSectionsAreAdded) {
    auto text = set_entry(kPolicy, "users", "carol", "{max_processes: 1}");
    ASSERT_TRUE(text);
    EXPECT_NE(text->find("users:\n  carol: {max_processes: 1}\n  # the interns' lead\n"),
              std::string::npos)
        << *text;
    auto gpu = set_entry(kPolicy, "gpus", "3", "{exclusive: true}");
    ASSERT_TRUE(gpu);
    EXPECT_TRUE(gpu->ends_with("rules: []\ngpus:\n  3: {exclusive: true}\n")) << *gpu;
    EXPECT_TRUE(parse_policy(*gpu, "guard.yaml"));
    auto empty_section = set_entry("users:\n", "users", "dave", "{max_processes: 3}");
    ASSERT_TRUE(empty_section);
    EXPECT_EQ(*empty_section, "users:\n  dave: {max_processes: 3}\n");
}

TEST(PolicyEdit, EntriesAreRemovedWithTheirLinesOnly) {
    auto text = remove_entry(kPolicy, "users", "alice");
    ASSERT_TRUE(text) << text.error().what;
    EXPECT_EQ(*text, R"(# site policy
mode: dry-run   # start safe

users:
  # the interns' lead
  # bob shares GPU 0
  bob: {memory_limit: 4G}

rules: []
)");
    auto last = remove_entry(kPolicy, "users", "bob");
    ASSERT_TRUE(last);
    EXPECT_NE(last->find("max_processes: 2\n  # bob shares GPU 0\n\nrules: []\n"),
              std::string::npos)
        << *last;
    EXPECT_EQ(remove_entry(kPolicy, "users", "eve").error().what,
              "the policy has no users entry \"eve\"");
    EXPECT_FALSE(set_entry("users: {a: {max_processes: 1}}\n", "users", "b", "{}"));
}

TEST(PolicyEdit, EntriesAreWrittenOutInFull) {
    const Enforcement inherited{Action::warn, std::chrono::minutes(5)};
    UserRule user{.user = "alice",
                  .limits = {.memory_bytes = 8ULL << 30, .max_processes = 2},
                  .allowed_gpus = std::set<unsigned>{0, 1},
                  .blocked_gpus = {3},
                  .enforcement = {Action::terminate, std::chrono::seconds(90)}};
    EXPECT_EQ(user_flow(user, inherited),
              "{memory_limit: 8G, max_processes: 2, allowed_gpus: [0, 1], blocked_gpus: [3], "
              "action: terminate, grace_period: 1m30s}");
    GpuRule gpu{.index = 3,
                .allowed_executables = std::set<std::string>{"/opt/x/bin/srv", "srv"},
                .reserved_memory_bytes = 1536ULL << 20,
                .exclusive = true,
                .enforcement = inherited};
    EXPECT_EQ(gpu_flow(gpu, inherited),
              "{allowed_executables: [\"/opt/x/bin/srv\", srv], reserved_memory: 1536M, "
              "exclusive: true}");
    EXPECT_EQ(size_text(1000), "1000");
}

}  // namespace
}  // namespace gpukill::guard
