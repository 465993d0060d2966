//! The print subcommands: `lookup` and `matrix` as table, JSON or CSV.
