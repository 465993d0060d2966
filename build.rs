//! Sets `EMBEDLENS_VERSION` for `--version`: the package version, and the commit when built
//! from a git checkout of embedlens itself.
//!
//! Without git, or outside a checkout (a `cargo package` tarball, `cargo install` from a
//! registry), it is the package version alone. A checkout that holds embedlens in a subfolder
//! (`cargo package` verifies in `target/package/`) is not embedlens's own and is ignored.

use std::path::Path;
use std::process::Command;

fn main() {
    let version = env!("CARGO_PKG_VERSION");
    let full = match commit() {
        Some(commit) => format!("{version} ({commit})"),
        None => version.to_owned(),
    };
    println!("cargo:rustc-env=EMBEDLENS_VERSION={full}");
    println!("cargo:rerun-if-changed=build.rs");
}

/// The checked-out commit, short; `None` when this is not a git checkout of this package.
fn commit() -> Option<String> {
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").ok()?;
    let git = |args: &[&str]| -> Option<String> {
        let output = Command::new("git")
            .args(args)
            .current_dir(&manifest_dir)
            .output()
            .ok()?;
        output
            .status
            .success()
            .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
    };
    let top = git(&["rev-parse", "--show-toplevel"])?;
    if Path::new(&top).canonicalize().ok()? != Path::new(&manifest_dir).canonicalize().ok()? {
        return None;
    }
    // Build again when the checked-out commit moves: HEAD, the branch it names, packed refs.
    // Only files that exist are named: cargo reruns a build script whose named file is missing
    // on every build (a repository without packed refs, a branch whose ref is only packed),
    // and that rebuilt the whole crate at every cargo command.
    let mut watched = vec!["HEAD".to_owned(), "packed-refs".to_owned()];
    watched.extend(git(&["symbolic-ref", "-q", "HEAD"]));
    for file in &watched {
        if let Some(path) = git(&["rev-parse", "--git-path", file]) {
            let path = Path::new(&top).join(path);
            if path.exists() {
                println!("cargo:rerun-if-changed={}", path.display());
            }
        }
    }
    git(&["rev-parse", "--short=10", "HEAD"])
}
