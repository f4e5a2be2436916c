// A temporary directory for one benchmark run, removed with its contents on destruction.
#pragma once

#include <string>

namespace gpukill::bench {

class TempTree {
  public:
    // Created under $TMPDIR (or /tmp) as NAME-XXXXXX, so a leftover says which benchmark
    // it came from.
    explicit TempTree(const std::string& name);
    ~TempTree();
    TempTree(const TempTree&) = delete;
    TempTree& operator=(const TempTree&) = delete;

    const std::string& root() const { return root_; }  // canonical (realpath)

  private:
    std::string root_;
};

}  // namespace gpukill::bench
