//! Inputs the fuzz targets (crates/fuzz) found slow or failing, kept in tests/fuzz-regressions
//! as `<target>-<hash>.bin` and run through the same path as their target: each must decode
//! without panic, quickly, and print a bounded amount (garbage once printed the same bytes
//! thousands of times over).

use std::fs;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use pgpage::am::decode_page;
use pgpage::am::decoded::DecodeOptions;
use pgpage::page::kind::{Fork, PageKind};
use pgpage::Endian;

/// Far above what any kept input takes (milliseconds), far below the seconds they once took.
const TIME_BOUND: Duration = Duration::from_secs(1);

/// crates/fuzz/fuzz_targets/page_decode.rs; returns the page's inspect JSON length.
fn page_decode(data: &[u8]) -> usize {
    let Some((&head, page)) = data.split_first() else {
        return 0;
    };
    let endian = if head & 1 == 0 {
        Endian::Little
    } else {
        Endian::Big
    };
    let kind = PageKind::ALL
        .get(usize::from(head >> 1) % (PageKind::ALL.len() + 1))
        .copied();
    let fork = [Fork::Main, Fork::Fsm, Fork::Vm, Fork::Init][usize::from(head >> 5) & 3];
    let d = decode_page(
        page,
        u32::from(head),
        &DecodeOptions {
            endian,
            kind,
            fork,
            file_kind: None,
        },
    );
    let mut at = 0u32;
    for s in &d.spans {
        assert!(
            s.start == at && s.end > s.start,
            "spans must tile the page: {at} {s:?}"
        );
        at = s.end;
    }
    assert_eq!(at as usize, page.len());
    serde_json::to_string(&d).unwrap().len()
}

#[test]
fn fuzz_regressions_decode_quickly_and_print_a_bounded_amount() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions");
    let mut seen = 0;
    for entry in fs::read_dir(&dir).expect("tests/fuzz-regressions") {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let data = fs::read(&path).unwrap();
        let (target, _) = name.split_once('-').expect("<target>-<hash>.bin");
        let started = Instant::now();
        let json = match target {
            "page_decode" => page_decode(&data),
            _ => panic!("{name}: no runner for fuzz target {target}"),
        };
        let took = started.elapsed();
        assert!(took < TIME_BOUND, "{name}: {took:?}");
        // A line pointer's row prints about 64 bytes of JSON per byte of page; garbage whose
        // items all point at the same bytes printed up to 800 before the item budget.
        assert!(
            json <= 128 * data.len() + 65_536,
            "{name}: {json} bytes of JSON for {} bytes",
            data.len()
        );
        seen += 1;
    }
    assert!(seen > 0, "no inputs in {}", dir.display());
}
