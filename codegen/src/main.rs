//! `cargo kubeskema`: see `kubeskema_codegen::cli`.

use clap::Parser;

fn main() {
    let kubeskema_codegen::cli::CargoCli::Kubeskema(args) = kubeskema_codegen::cli::CargoCli::parse();
    std::process::exit(kubeskema_codegen::cli::run(args));
}
