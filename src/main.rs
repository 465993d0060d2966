//! The embedlens binary: the explorer, or a print subcommand.

use std::process::ExitCode;

use clap::Parser;
use embedlens::cli::{Args, Command};

fn main() -> ExitCode {
    let args = Args::parse();
    let mut stdout = std::io::stdout().lock();
    let result = match &args.command {
        Some(Command::Lookup(lookup)) => embedlens::print::lookup(lookup, &mut stdout),
        Some(Command::Matrix(matrix)) => embedlens::print::matrix(matrix, &mut stdout),
        None => Ok(()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("embedlens: {error:#}");
            ExitCode::FAILURE
        }
    }
}
