// `sluice iceberg compact <catalog.ns.table>` and `sluice iceberg expire-snapshots <table>
// --older-than <duration>`: maintenance of Iceberg tables a stream writes (docs/iceberg.md).
// main.cc registers them with one call: sluice::cli::AddIcebergCommands(&app, &rc);
#pragma once

#include <CLI/CLI.hpp>

namespace sluice::cli {

/// Adds the `iceberg` subcommand group to `app`; the chosen command's exit code goes to *rc.
void AddIcebergCommands(CLI::App* app, int* rc);

}  // namespace sluice::cli
