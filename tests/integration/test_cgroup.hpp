// A cgroup a (root) test creates to put real processes where a container runtime would:
// `relative` below the first hierarchy it can create cgroups in (cgroup v1's pids, v1's
// unified, or the v2 root), e.g. "docker-<id>.scope" or
// "kubepods/besteffort/pod<uid>/<container id>". The leaf must not exist yet: it is this
// test's alone (parents may be shared). Processes moved in go back to the hierarchy's
// root when it is removed, then the directories it made go, deepest first; a shared
// parent another test still uses stays (rmdir refuses a cgroup that is not empty).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace gpukill::testing {

class TestCgroup {
  public:
    explicit TestCgroup(const std::string& relative);
    ~TestCgroup();
    TestCgroup(const TestCgroup&) = delete;
    TestCgroup& operator=(const TestCgroup&) = delete;

    // False when no hierarchy would take it (not root, no cgroup file system).
    bool usable() const { return !created_.empty(); }
    bool move(pid_t pid) const;

  private:
    std::string hierarchy_;
    std::vector<std::string> created_;  // outermost first; the last is the leaf
};

}  // namespace gpukill::testing
