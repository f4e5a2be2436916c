# `cmake --install` and the Debian package (`cpack -G DEB` in the build directory):
# the binaries, the man pages and shell completions (generated from the option table),
# and the example configurations. gpusim and the simulated NVML are test tools: not
# installed.
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
install(FILES README.md docs/GUARD.md docs/ROGUE.md docs/JSON.md docs/AUDIT.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gpukill)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "gpukill developers <gpukill-dev@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "find what holds a GPU and give it back safely")
set(CPACK_PACKAGE_DESCRIPTION
    "gpukill lists GPUs and every process holding them, including holders the driver\n"
    "does not list, stops runaway processes with proof that their memory came back,\n"
    "resets a GPU when nothing else helps, enforces policies, audits every action and\n"
    "finds miners.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # gpukill_<version>_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
# The runtime libraries, as dpkg-shlibdeps reads them from the binary (libfmt9,
# libyaml-cpp0.7, libsqlite3-0, libstdc++6, libc6 ...).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# fuser (psmisc) for the comparisons the docs suggest; bash-completion loads ours.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "psmisc, bash-completion")
include(CPack)
