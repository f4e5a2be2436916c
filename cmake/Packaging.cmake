# `cmake --install` and the Debian package (`cpack -G DEB` in the build directory):
# the binaries, the man pages and shell completions (generated from the option table),
# the example configurations, the user documentation, what deploy/ ships (in
# DATADIR/gpukill), and the agent's systemd unit where systemd looks for a package's
# units. gpusim and the simulated NVML are test tools: not installed.
include(GNUInstallDirs)
install(TARGETS gpukill RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The agent, MCP server, fleet commands and monitor (src/cli/interface_commands.hpp):
# gpukill execs it from here for them.
install(TARGETS gpukill-interfaces RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/gpukill)
install(FILES ${GPUKILL_MAN_PAGES} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${GPUKILL_BASH_COMPLETION}
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${GPUKILL_ZSH_COMPLETION} DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
install(FILES docs/examples/guard.yaml docs/examples/protected.yaml docs/examples/rogue.yaml
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
# Every document a user reads; ARCHITECTURE, BENCHMARKS, FUZZING and SIMULATOR are for
# the project's developers (gpusim is not installed).
install(FILES README.md docs/AGENT.md docs/API.md docs/AUDIT.md docs/DEPLOY.md docs/FLEET.md
              docs/GUARD.md docs/HARDWARE.md docs/JSON.md docs/MCP.md docs/METRICS.md
              docs/PATTERNS.md docs/ROGUE.md docs/TOP.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
# deploy/ as docs/DEPLOY.md names it, under /usr/share/gpukill; the Slurm scripts stay
# executable. The alert rules' promtool unit test is the project's test, not shipped.
set(GPUKILL_SHARE ${CMAKE_INSTALL_DATADIR}/gpukill)
install(FILES deploy/kubernetes/gpukill-agent.yaml DESTINATION ${GPUKILL_SHARE}/kubernetes)
install(FILES deploy/container/Containerfile DESTINATION ${GPUKILL_SHARE}/container)
install(FILES deploy/node-problem-detector/gpukill-check.json
        DESTINATION ${GPUKILL_SHARE}/node-problem-detector)
install(FILES deploy/prometheus/gpukill-alerts.yaml DESTINATION ${GPUKILL_SHARE}/prometheus)
install(FILES deploy/grafana/gpukill-dashboard.json DESTINATION ${GPUKILL_SHARE}/grafana)
install(PROGRAMS deploy/slurm/gpukill-epilog.sh deploy/slurm/gpukill-prolog.sh
        DESTINATION ${GPUKILL_SHARE}/slurm)
install(FILES deploy/systemd/gpukill-agent.service DESTINATION ${GPUKILL_SHARE}/systemd)
# Where systemd looks for the units packages ship (PREFIX/lib/systemd/system: with the
# package's /usr, /usr/lib/systemd/system); `systemctl enable --now gpukill-agent`.
install(FILES deploy/systemd/gpukill-agent.service DESTINATION lib/systemd/system)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gpukill)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "gpukill developers <gpukill-dev@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "find what holds a GPU and give it back safely")
# One string: a list of strings would be joined with ';', which Debian shows as lines.
string(CONCAT CPACK_PACKAGE_DESCRIPTION
       "gpukill lists GPUs and every process holding them, including holders the driver\n"
       "does not list, stops runaway processes with proof that their memory came back,\n"
       "resets a GPU when nothing else helps, enforces policies, audits every action and\n"
       "finds miners. It ships an agent (Prometheus metrics, an HTTP API, the guard),\n"
       "an MCP server, and deployments for systemd, Kubernetes, node-problem-detector,\n"
       "Slurm, Prometheus and Grafana in /usr/share/gpukill.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # gpukill_<version>_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
# The runtime libraries, as dpkg-shlibdeps reads them from the binary (libfmt9,
# libyaml-cpp0.7, libsqlite3-0, libstdc++6, libc6 ...).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The binaries stripped in the package, their debug information split into
# gpukill-dbgsym_<version>_amd64.ddeb (by build id, for gdb and debuginfod).
set(CPACK_DEBIAN_DEBUGINFO_PACKAGE ON)
# fuser (psmisc) for the comparisons the docs suggest; bash-completion loads ours.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "psmisc, bash-completion")
include(CPack)
