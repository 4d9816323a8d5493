//! Holds the wasm bodies against the native scalar one: builds bench/wasm-kernel (the core's
//! bodies exported bare) for wasm32 with simd128, and has Node run both the wasm scalar and
//! the simd128 body on random pages of every block size and both byte orders.
use std::path::Path;
use std::process::Command;

use pgpage::page::checksum::scalar;
use pgpage::{BlockSize, Endian};

#[test]
fn wasm_simd128_and_scalar_equal_native_scalar() {
    let kernel = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/wasm-kernel");
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("wasm-kernel");
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args([
            "build",
            "--quiet",
            "--release",
            "--target",
            "wasm32-unknown-unknown",
        ])
        .arg("--manifest-path")
        .arg(kernel.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .env("RUSTFLAGS", "-C target-feature=+simd128")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .status()
        .expect("cannot run cargo");
    assert!(
        status.success(),
        "building bench/wasm-kernel for wasm32 (rustup target add wasm32-unknown-unknown?)"
    );
    let wasm = target.join("wasm32-unknown-unknown/release/pgpage_wasm_kernel.wasm");

    let mut x: u64 = 0x243F_6A88_85A3_08D3;
    let mut cases = Vec::new();
    for size in BlockSize::ALL {
        for endian in [Endian::Little, Endian::Big] {
            for _ in 0..40 {
                let page: Vec<u8> = (0..size)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        (x >> 32) as u8
                    })
                    .collect();
                cases.extend_from_slice(&size.to_le_bytes());
                cases.extend_from_slice(&u32::from(endian == Endian::Big).to_le_bytes());
                cases.extend_from_slice(&scalar::checksum_fold(&page, endian).to_le_bytes());
                cases.extend_from_slice(&page);
            }
        }
    }
    let cases_path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("wasm-cases.bin");
    std::fs::write(&cases_path, cases).unwrap();
    let out = Command::new("node")
        .arg(kernel.join("check.mjs"))
        .arg(&wasm)
        .arg(&cases_path)
        .output()
        .expect("cannot run node");
    let said =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "wasm bodies disagree with native scalar: {said}"
    );
    assert!(said.contains("480 pages, 0 mismatches"), "{said}");
}
