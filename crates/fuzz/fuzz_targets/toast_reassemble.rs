//! Any bytes as TOAST chunk tuples and a TOAST pointer: chunks reassembled or a problem in
//! the server's words, never a panic; a reassembled value has the pointer's size.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgpage::tuple::toast::{chunk_attributes, chunk_of, reassemble};
use pgpage::tuple::{ToastPointer, Varlena};
use pgpage::Endian;

fuzz_target!(|data: &[u8]| {
    let Some((ptr, rest)) = data.split_first_chunk::<18>() else {
        return;
    };
    let Ok(Varlena::External(p)) = Varlena::parse(ptr, Endian::Little) else {
        // Not a pointer: read the rest as chunk tuples only.
        let attrs = chunk_attributes();
        let mut scratch = Vec::new();
        let _ = chunk_of(rest, &attrs, Endian::Little, &mut scratch);
        return;
    };
    let p: ToastPointer = p;
    let step = usize::from(rest.first().copied().unwrap_or(1)).max(1);
    let chunks: Vec<(i32, &[u8])> = rest
        .chunks(step)
        .enumerate()
        .map(|(i, c)| (i as i32 - i32::from(i % 5 == 4), c))
        .collect();
    if let Ok(v) = reassemble(&p, &chunks, step, "pg_toast_1") {
        assert_eq!(v.len(), p.extsize as usize);
    }
});
