//! Any bytes decoded as any page kind in either byte order: no panic, and the spans cover
//! the page in order without overlap, so the hex view can colour every byte.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgpage::am::decode_page;
use pgpage::am::decoded::DecodeOptions;
use pgpage::page::kind::{Fork, PageKind};
use pgpage::Endian;

fuzz_target!(|data: &[u8]| {
    let Some((&head, page)) = data.split_first() else {
        return;
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
});
