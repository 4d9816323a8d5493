//! The inspect --json path: any page decodes and serializes to JSON that parses back and
//! names the kind it was decoded as.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgpage::am::decode_page;
use pgpage::am::decoded::DecodeOptions;
use pgpage::page::kind::PageKind;
use pgpage::Endian;

/// The top-level `kind`; serde_json still parses (and so checks) every other byte, skipping
/// what it does not keep. Parsing into a serde_json::Value, as this target first did, spent
/// most of each run building maps of the whole page under coverage tracing (~370 runs/s).
#[derive(serde::Deserialize)]
struct Kind {
    kind: String,
}

fuzz_target!(|data: &[u8]| {
    let Some((&head, page)) = data.split_first() else {
        return;
    };
    let kind = PageKind::ALL
        .get(usize::from(head) % (PageKind::ALL.len() + 1))
        .copied();
    let opts = DecodeOptions {
        endian: Endian::Little,
        kind,
        ..DecodeOptions::default()
    };
    let d = decode_page(page, 0, &opts);
    let text = serde_json::to_string(&d).expect("a decoded page always serializes");
    let back: Kind = serde_json::from_str(&text).expect("valid JSON");
    assert_eq!(back.kind, d.kind.as_str());
});
