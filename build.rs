//! Generates the action catalog from `actions/*.yaml` into `OUT_DIR/actions.rs`, the known
//! requests' search table from `actions/requests/` into `OUT_DIR/requests.table`, and checks
//! the workflow prompts of `prompts/*.yaml` against the catalog into `OUT_DIR/prompts.json`.
//!
//! The generator lives in `src/codegen/` (build time only); this file only wires it to Cargo:
//! `rerun-if-changed` on the folders it reads (Cargo watches a folder's whole tree, so a
//! failed build's output is not hundreds of lines of file names) and one readable error per
//! manifest problem, the summary last.

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
    let prompts = root.join("prompts");

    // The generator and the modules it borrows from the runtime with `#[path]`.
    for input in [
        "actions",
        "prompts",
        "src/codegen",
        "src/kinds.rs",
        "src/text.rs",
        "src/yaml.rs",
        "src/sandbox/seed",
    ] {
        println!("cargo:rerun-if-changed={input}");
    }
    // The known requests' table is written by the runtime's own reader (`#[path]`).
    println!("cargo:rerun-if-changed=src/search/known");

    write_seed_list(&root, &out);
    pack_relative_relocations();
    let requests = file_list(
        &actions.join("requests"),
        "actions/requests",
        "tsv",
        "REQUESTS",
    );
    std::fs::write(out.join("requests.rs"), requests).expect("OUT_DIR is writable");

    match codegen::generate_with_prompts(&actions, &prompts) {
        Ok((source, prompts)) => {
            std::fs::write(out.join("actions.rs"), source).expect("OUT_DIR is writable");
            std::fs::write(
                out.join("requests.table"),
                codegen::requests::table(&actions),
            )
            .expect("OUT_DIR is writable");
            std::fs::write(out.join("prompts.json"), prompts).expect("OUT_DIR is writable");
            ExitCode::SUCCESS
        }
        Err(diagnostics) => {
            // Cargo shows a failed build script's stdout, then its stderr: the report goes
            // last, on stderr, with nothing after it.
            eprint!("{}", codegen::report(&diagnostics));
            ExitCode::FAILURE
        }
    }
}

/// Links the binary with packed relative relocations (DT_RELR) where the C library can load
/// them. The catalog is static data full of pointers, so a position-independent binary
/// carries ~80,000 relative relocations: as RELA entries that is a 1.9 MB table the loader
/// reads (and keeps resident) at every start; packed it is ~34 KB. glibc loads DT_RELR from
/// 2.36 on, and a binary that uses it refuses to start on an older one, so the flag is only
/// given when building for this machine's own glibc, and that glibc is 2.36 or newer.
/// Release archives are static musl binaries and are linked as before.
fn pack_relative_relocations() {
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let native = var("HOST") == var("TARGET");
    if !(native && var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu") {
        return;
    }
    // `glibc 2.36`; no answer (another C library, no getconf) means no packing.
    let version = std::process::Command::new("getconf")
        .arg("GNU_LIBC_VERSION")
        .output()
        .ok()
        .and_then(|output| String::from_utf8(output.stdout).ok())
        .and_then(|text| {
            let (major, minor) = text.trim().strip_prefix("glibc ")?.split_once('.')?;
            let minor = minor.split('.').next()?;
            Some((major.parse::<u32>().ok()?, minor.parse::<u32>().ok()?))
        });
    if version.is_some_and(|version| version >= (2, 36)) {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// Lists the sandbox's seed files for `include_str!`, so a new collection or behaviour is
/// data only: `records/*.json` as `RECORDS`, `behaviour/*.json` as `BEHAVIOURS`.
fn write_seed_list(root: &std::path::Path, out: &std::path::Path) {
    for (folder, constant, file) in [
        ("records", "RECORDS", "seed_records.rs"),
        ("behaviour", "BEHAVIOURS", "seed_behaviours.rs"),
    ] {
        let source = file_list(
            &root.join("src/sandbox/seed").join(folder),
            &format!("seed/{folder}"),
            "json",
            constant,
        );
        std::fs::write(out.join(file), source).expect("OUT_DIR is writable");
    }
}

/// `constant`: every `.{extension}` file in `folder` (shown as `name`), by file stem, for
/// `include_str!`.
fn file_list(folder: &std::path::Path, name: &str, extension: &str, constant: &str) -> String {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == extension))
        .collect();
    files.sort();
    let mut source = format!(
        "/// Every file in `{name}/`, by file name.\npub const {constant}: &[(&str, &str)] = &[\n"
    );
    for file in files {
        let name = file
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        source.push_str(&format!(
            "    ({name:?}, include_str!({:?})),\n",
            file.display().to_string()
        ));
    }
    source.push_str("];\n");
    source
}
