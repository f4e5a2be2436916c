#include "temp_tree.hpp"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>

namespace gpukill::bench {

TempTree::TempTree(const std::string& name) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/" + name + "-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
        throw std::runtime_error("cannot create a directory from " + pattern + ": " +
                                 std::strerror(errno));
    }
    // Canonical, because the kernel prints resolved paths in fd links.
    std::unique_ptr<char, decltype(&::free)> resolved(::realpath(pattern.c_str(), nullptr),
                                                      &::free);
    root_ = resolved ? resolved.get() : pattern;
}

TempTree::~TempTree() {
    std::error_code ignored;  // best effort: a leftover temp dir is not worth a crash
    std::filesystem::remove_all(root_, ignored);
}

}  // namespace gpukill::bench
