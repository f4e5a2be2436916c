#include "cli/app.hpp"

int main(int argc, char** argv) {
    return gpukill::cli::run_cli(argc, argv);
}
