// `pgpage serve` carries the built app (the repository's dist/, from `vite build`). Cargo is
// told to build the CLI again when the app is built again: vite writes a new index.html each
// time, naming the new asset files.
fn main() {
    println!("cargo:rerun-if-changed=../../dist/index.html");
}
