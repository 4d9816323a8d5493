//! The inspect --json path: any page decodes and serializes to JSON that parses back and
//! names the kind it was decoded as.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgpage::decode::{decode_page, DecodeOptions, PageKind};
use pgpage::Endian;

fuzz_target!(|data: &[u8]| {
    let Some((&head, page)) = data.split_first() else { return };
    let kind = PageKind::ALL.get(usize::from(head) % (PageKind::ALL.len() + 1)).copied();
    let opts = DecodeOptions { endian: Endian::Little, kind, ..DecodeOptions::default() };
    let d = decode_page(page, 0, &opts);
    let text = serde_json::to_string(&d).expect("a decoded page always serializes");
    let back: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    assert_eq!(back["kind"].as_str(), Some(d.kind.as_str()));
});
