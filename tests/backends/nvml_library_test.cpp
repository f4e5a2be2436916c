#include "backends/nvml/nvml_library.hpp"
#include "backends/nvml/nvml_backend.hpp"

#include <gtest/gtest.h>

namespace gpukill::nvml {
namespace {

TEST(NvmlLibrary, AMissingFileIsAOneLineError) {
    auto library = NvmlLibrary::open("/nonexistent/libnvidia-ml.so.1");
    ASSERT_FALSE(library.has_value());
    EXPECT_NE(library.error().what.find("cannot load NVML library /nonexistent"),
              std::string::npos);
    EXPECT_EQ(library.error().what.find('\n'), std::string::npos);
}

TEST(NvmlLibrary, ALibraryThatIsNotNvmlIsRejected) {
    auto library = NvmlLibrary::open("libc.so.6");
    ASSERT_FALSE(library.has_value());
    EXPECT_NE(library.error().what.find("is not an NVML library"), std::string::npos);
}

TEST(NvmlLibrary, ATextFileIsRejected) {
    auto library = NvmlLibrary::open("/etc/hostname");
    ASSERT_FALSE(library.has_value());
}

TEST(NvmlBackend, AnExplicitPathThatFailsIsReportedAsRequested) {
    NvmlBackend backend(std::string("/nonexistent/libnvidia-ml.so.1"));
    EXPECT_FALSE(backend.status().loaded);
    EXPECT_TRUE(backend.status().explicitly_requested);
    EXPECT_TRUE(backend.read_gpus().empty());
}

}  // namespace
}  // namespace gpukill::nvml
