//! The checksum bodies as a bare wasm module, no bindings, so Node can test and time them:
//! crates/pgpage/tests/wasm_simd128.rs builds it with simd128 and holds its bodies against
//! the native scalar one. Build (from bench/wasm-kernel): cargo build --release
//!   --target wasm32-unknown-unknown, with RUSTFLAGS='-C target-feature=+simd128'.
//! Exports: `alloc(len) -> ptr`, `fold_scalar(ptr, len, big)`, `fold_simd128(ptr, len, big)`,
//! and `checksum_pages(simd, ptr, page_size, count, big, first_block)` (xor of every page's
//! pg_checksum_page, one call for many pages, for timing).
#[cfg(target_arch = "wasm32")]
mod exports {
    use pgpage::page::checksum::{finish, scalar};
    use pgpage::Endian;

    fn endian(big: u32) -> Endian {
        if big == 0 {
            Endian::Little
        } else {
            Endian::Big
        }
    }

    fn bytes<'a>(ptr: *const u8, len: usize) -> &'a [u8] {
        // SAFETY: the caller (JS) passes a range inside a buffer it got from `alloc`.
        unsafe { core::slice::from_raw_parts(ptr, len) }
    }

    /// A buffer of `len` bytes that lives as long as the module.
    #[no_mangle]
    pub extern "C" fn alloc(len: usize) -> *mut u8 {
        Vec::<u8>::leak(vec![0; len]).as_mut_ptr()
    }

    #[no_mangle]
    pub extern "C" fn fold_scalar(ptr: *const u8, len: usize, big: u32) -> u32 {
        scalar::checksum_fold(bytes(ptr, len), endian(big))
    }

    #[cfg(target_feature = "simd128")]
    #[no_mangle]
    pub extern "C" fn fold_simd128(ptr: *const u8, len: usize, big: u32) -> u32 {
        pgpage::page::checksum::wasm::simd128_fold(bytes(ptr, len), endian(big))
    }

    #[no_mangle]
    pub extern "C" fn checksum_pages(
        simd: u32,
        ptr: *const u8,
        page_size: usize,
        count: usize,
        big: u32,
        first_block: u32,
    ) -> u32 {
        let e = endian(big);
        let body: fn(&[u8], Endian) -> u32 = match simd {
            #[cfg(target_feature = "simd128")]
            1 => pgpage::page::checksum::wasm::simd128_fold,
            _ => scalar::checksum_fold,
        };
        let mut sink = 0u32;
        let pages = bytes(ptr, page_size.saturating_mul(count));
        for (blk, page) in (first_block..).zip(pages.chunks_exact(page_size.max(1))) {
            sink ^= u32::from(finish(body(page, e), blk));
        }
        sink
    }
}
