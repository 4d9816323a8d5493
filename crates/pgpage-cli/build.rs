// `pgpage serve` carries the built app (the repository's dist/, from `vite build`). Cargo is
// told to build the CLI again when the app is built again: vite writes a new index.html each
// time, naming the new asset files.
//
// `pgpage --version` names the commit it was built from, as the app's footer does (vite.config.ts
// asks git the same way), so that a report pasted into a ticket says which build made it.
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
        .filter(|s| !s.is_empty())
}

fn main() {
    println!("cargo:rerun-if-changed=../../dist/index.html");
    let commit =
        git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| String::from("unknown"));
    println!("cargo:rustc-env=PGPAGE_COMMIT={commit}");
    // A new commit moves HEAD's ref (or HEAD itself when detached): build again then.
    if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        println!("cargo:rerun-if-changed={dir}/packed-refs");
        if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={dir}/{r}");
        }
    }
}
