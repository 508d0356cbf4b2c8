//! Generates the action catalog from `actions/*.yaml` into `OUT_DIR/actions.rs`.
//!
//! The generator lives in `src/codegen/` (build time only); this file only wires it to Cargo:
//! exact `rerun-if-changed` lines and one readable error per manifest problem.

#[path = "src/codegen/mod.rs"]
mod codegen;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let root = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    );
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let actions = root.join("actions");

    println!("cargo:rerun-if-changed=actions");
    for entry in std::fs::read_dir(&actions).into_iter().flatten().flatten() {
        println!("cargo:rerun-if-changed={}", entry.path().display());
    }
    let codegen = root.join("src/codegen");
    for entry in std::fs::read_dir(&codegen).into_iter().flatten().flatten() {
        println!("cargo:rerun-if-changed={}", entry.path().display());
    }

    match codegen::generate(&actions) {
        Ok(source) => {
            std::fs::write(out.join("actions.rs"), source).expect("OUT_DIR is writable");
            ExitCode::SUCCESS
        }
        Err(diagnostics) => {
            eprintln!(
                "error: the action manifest has {} problem(s):",
                diagnostics.len()
            );
            for diagnostic in &diagnostics {
                eprintln!("  {diagnostic}");
                println!("cargo:warning={diagnostic}");
            }
            ExitCode::FAILURE
        }
    }
}
