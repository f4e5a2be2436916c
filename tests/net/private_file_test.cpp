// The private-file reader (token files, TLS keys) meets a Kubernetes Secret as the
// kubelet mounts it: links into a `..data` directory that is swapped atomically. Those
// links are followed; one that leaves the file's directory is not, and the file reached
// is still checked for its owner and mode.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "../integration/kubelet_secret_volume.hpp"
#include "net/access.hpp"

namespace gpukill::net {
namespace {

const std::string kSecret(40, 'k');

class PrivateFile : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() /
               ("gpukill-private-" + std::to_string(::getpid()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }
    std::filesystem::path dir_;
};

TEST_F(PrivateFile, ReadsASecretMountedTheKubeletsWay) {
    testing::KubeletSecretVolume volume(dir_ / "tokens",
                                        {{"tokens", "metrics read " + kSecret + "\n"}}, 0400);
    ASSERT_TRUE(std::filesystem::is_symlink(volume.path("tokens")));
    auto tokens = TokenSet::load(volume.path("tokens"));
    ASSERT_TRUE(tokens) << tokens.error().what;
    EXPECT_NE(tokens->match(kSecret), nullptr);

    // The kubelet's update: `..data` renamed to a new directory; the same path reads it.
    const std::string rotated(48, 'r');
    volume.write({{"tokens", "metrics read " + rotated + "\n"}}, 0400);
    auto again = TokenSet::load(volume.path("tokens"));
    ASSERT_TRUE(again) << again.error().what;
    EXPECT_NE(again->match(rotated), nullptr);
    EXPECT_EQ(again->match(kSecret), nullptr);
}

TEST_F(PrivateFile, ChecksTheModeOfTheFileALinkReaches) {
    // defaultMode 0644 (Kubernetes' own default): the file behind the links is readable
    // by all, and refused as a plain file would be.
    testing::KubeletSecretVolume volume(dir_ / "tls", {{"tls.key", "key"}}, 0644);
    auto key = read_private_file(volume.path("tls.key"));
    ASSERT_FALSE(key);
    EXPECT_EQ(key.error().category, ErrorCategory::permission);
    EXPECT_NE(key.error().what.find("mode 0644"), std::string::npos) << key.error().what;
}

TEST_F(PrivateFile, RefusesALinkThatLeavesItsDirectory) {
    // Another private file of root's, outside the mounted directory.
    const std::filesystem::path outside = dir_ / "elsewhere" / "id_ed25519";
    std::filesystem::create_directories(outside.parent_path());
    std::ofstream(outside) << "metrics read " << kSecret << "\n";
    ASSERT_EQ(::chmod(outside.c_str(), 0600), 0);
    ASSERT_TRUE(read_private_file(outside.string()));  // readable where it is

    const std::filesystem::path mount = dir_ / "mount";
    std::filesystem::create_directories(mount);
    std::filesystem::create_symlink(outside, mount / "absolute");
    std::filesystem::create_symlink("../elsewhere/id_ed25519", mount / "relative");
    std::filesystem::create_directories(mount / "..data");
    std::filesystem::create_symlink("../../elsewhere/id_ed25519", mount / "..data" / "tokens");
    std::filesystem::create_symlink("..data/tokens", mount / "tokens");
    for (const char* name : {"absolute", "relative", "tokens"}) {
        auto read = read_private_file((mount / name).string());
        ASSERT_FALSE(read) << name;
        EXPECT_EQ(read.error().category, ErrorCategory::permission) << name;
        EXPECT_NE(read.error().what.find("leaves its directory"), std::string::npos)
            << read.error().what;
    }
}

TEST_F(PrivateFile, RefusesWhatIsNotARegularFile) {
    const std::filesystem::path fifo = dir_ / "tokens";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);  // opened without waiting for a writer
    auto read = read_private_file(fifo.string());
    ASSERT_FALSE(read);
    EXPECT_NE(read.error().what.find("not a regular file"), std::string::npos) << read.error().what;
    EXPECT_FALSE(read_private_file((dir_ / "").string()));
}

}  // namespace
}  // namespace gpukill::net
