//! `pgpage`: argument parsing and printing over the pgpage core (CONTRACTS.md).
fn main() {
    std::process::exit(2);
}
