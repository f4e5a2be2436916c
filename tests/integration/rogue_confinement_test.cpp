// The configuration files a GPU holder names are read as that process sees them, inside
// its own root: a real container (a mount namespace, pivot_root into a root this test
// builds) whose links point at a host secret and at /etc/shadow, and a chroot'ed process
// that climbs out with "../../..". What is read must be the container's or the jail's
// own files; the host's secret must appear nowhere: not in the scan's JSON, not in its
// messages, not in the audit log.
#include <unistd.h>

#include <gtest/gtest.h>

#include "rogue_support.hpp"

namespace gpukill::testing {
namespace {

// Enters a root as a container runtime would: $1 pivot|chroot, $2 the new root, $3 the
// simulated host's root and $4 the build tree, both bound at their own paths so gpusim
// runs and holds its GPU inside; then cd $5 and exec the rest. The host's /usr, /lib*,
// /bin and /dev are bound in (the programs' libraries), nothing else of the host.
constexpr const char* kEnterRoot = R"(set -eu
mode=$1 root=$2 sim=$3 build=$4 cwd=$5
shift 5
# pivot_root needs the new root to be a mount point.
[ "$mode" = pivot ] && mount --bind "$root" "$root"
for dir in usr lib lib64 bin sbin dev; do
    [ -e /$dir ] || continue
    mkdir -p "$root/$dir"
    mount --rbind /$dir "$root/$dir"
done
mkdir -p "$root/proc" "$root$sim" "$root$build"
mount -t proc proc "$root/proc"
mount --bind "$sim" "$root$sim"
mount --bind "$build" "$root$build"
if [ "$mode" = pivot ]; then
    mkdir -p "$root/.old"
    cd "$root"
    pivot_root . .old
    umount -l /.old
    cd "$cwd"
    exec "$@"
fi
exec chroot "$root" /bin/sh -c 'cd "$0" && exec "$@"' "$cwd" "$@"
)";

// The build tree gpusim runs from (GPUSIM_BIN is BUILD/bin/gpusim).
std::string build_tree() {
    return fs::path(GPUSIM_BIN).parent_path().parent_path().string();
}

class ConfinedWorkload {
  public:
    ConfinedWorkload(SimulatedHost& host, const ScratchDir& scratch, const std::string& mode,
                     const std::string& root, const std::string& cwd,
                     const std::vector<std::string>& config_args) {
        write_text(scratch / "enter.sh", kEnterRoot);
        std::vector<std::string> args = {"--gpu", "0", "--mem", "256M", "--"};
        args.insert(args.end(), config_args.begin(), config_args.end());
        workload_.emplace(
            host.run_via({"/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh",
                          scratch / "enter.sh", mode, root, host.root(), build_tree(), cwd},
                         args));
    }
    pid_t pid() const { return workload_->pid(); }

  private:
    std::optional<Workload> workload_;
};

// Everything the scan said, and recorded, as one text to search.
std::string everything_said(const RogueRun& run, const ScratchDir& dirs) {
    return run.result.out + run.result.err + read_text(dirs / "state/audit.jsonl");
}

TEST(RogueConfinement, AContainersLinksToHostFilesReadTheContainersOwnFiles) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root for a mount namespace and pivot_root";
    SimulatedHost host;
    ScratchDir dirs("/tmp");
    ScratchDir secret("/tmp");
    ScratchDir container("/tmp");
    write_text(secret / "creds.conf", "url = stratum+tcp://hostleak.example:3333\n");
    const std::string root = container / "root";
    fs::create_directories(root + "/app");
    fs::create_directories(root + "/etc");
    write_text(root + "/etc/shadow", "url = stratum+tcp://container-own.example:3333\n");
    fs::create_symlink(secret / "creds.conf", root + "/app/cfglink");
    fs::create_symlink("/etc/shadow", root + "/app/shadowlink");
    write_text(dirs / "rogue.yaml", "report_threshold: 1\n");

    ConfinedWorkload job(host, container, "pivot", root, "/app",
                         {"--config", "cfglink", "-c", "shadowlink"});
    RogueRun run = rogue_json(host, dirs, {"--rogue-config-file", dirs / "rogue.yaml"});
    ASSERT_FALSE(run.doc.is_null()) << run.result.err;
    const nlohmann::json* finding = entry_for(run.doc["findings"], job.pid());
    ASSERT_NE(finding, nullptr) << run.result.out;
    // shadowlink is the container's /etc/shadow: read, and judged.
    EXPECT_NE(detail_of(*finding, "stratum_url").find("container-own.example"), std::string::npos)
        << finding->dump(2);
    // cfglink names a path that exists only on the host: inside the container it is nothing.
    EXPECT_EQ(everything_said(run, dirs).find("hostleak"), std::string::npos) << run.result.out;
}

TEST(RogueConfinement, AChrootedProcessClimbingOutWithDotDotReadsNothingOfTheHost) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root for a mount namespace and chroot";
    SimulatedHost host;
    ScratchDir dirs("/tmp");
    ScratchDir secret("/tmp");
    ScratchDir jail("/tmp");
    write_text(secret / "creds.conf", "url = stratum+tcp://hostleak.example:3333\n");
    const std::string root = jail / "root";
    fs::create_directories(root + "/work");
    write_text(dirs / "rogue.yaml", "report_threshold: 1\n");

    // From /work inside the jail; on the host that is JAIL/root/work, and enough ".."
    // from there reaches the host's root.
    ConfinedWorkload job(host, jail, "chroot", root, "/work",
                         {"--cfg", "../../../../../../../../.." + secret / "creds.conf"});
    RogueRun run = rogue_json(host, dirs, {"--rogue-config-file", dirs / "rogue.yaml"});
    ASSERT_FALSE(run.doc.is_null()) << run.result.err;
    EXPECT_EQ(everything_said(run, dirs).find("hostleak"), std::string::npos) << run.result.out;
    // The same climb from inside the jail, to a file the jail has, is read: the reader
    // resolves like the process, it does not refuse "..".
    fs::create_directories(root + secret.path().string());
    write_text(root + (secret / "creds.conf"), "url = stratum+tcp://jail-own.example:3333\n");
    RogueRun again = rogue_json(host, dirs, {"--rogue-config-file", dirs / "rogue.yaml"});
    const nlohmann::json* finding = entry_for(again.doc["findings"], job.pid());
    ASSERT_NE(finding, nullptr) << again.result.out;
    EXPECT_NE(detail_of(*finding, "stratum_url").find("jail-own.example"), std::string::npos)
        << finding->dump(2);
    EXPECT_EQ(everything_said(again, dirs).find("hostleak"), std::string::npos);
}

}  // namespace
}  // namespace gpukill::testing
