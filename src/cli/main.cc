// The `sluice` command.
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/checkpoint_command.h"

int main(int argc, char** argv) {
  CLI::App app{"sluice: micro-batch stream processing with exactly-once checkpoints"};
  app.require_subcommand(1);

  auto* version = app.add_subcommand("version", "Print the sluice version");
  version->callback([] { std::cout << "sluice " << SLUICE_VERSION << std::endl; });

  auto* checkpoint = app.add_subcommand("checkpoint", "Inspect a query's checkpoint directory");
  checkpoint->require_subcommand(1);
  auto* show = checkpoint->add_subcommand("show", "Print the checkpoint's state as JSON");
  std::string dir;
  show->add_option("DIR", dir, "Checkpoint directory")->required();
  int rc = 0;
  show->callback([&] {
    auto out = sluice::cli::ShowCheckpoint(dir);
    if (!out.ok()) {
      std::cerr << "sluice: " << out.status().message() << std::endl;
      rc = 1;
      return;
    }
    std::cout << *out << std::endl;
  });

  CLI11_PARSE(app, argc, argv);
  return rc;
}
