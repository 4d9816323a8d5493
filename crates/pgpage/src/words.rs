//! English the messages share: a count with its noun in the right number. The report, the
//! repair advice, the playground's stories and the CLI all count things in sentences.

use alloc::format;
use alloc::string::String;

/// `1 page`, `2 pages`: `one` or `many` after `n`.
pub fn plural<N: core::fmt::Display + PartialEq + From<u8>>(n: N, one: &str, many: &str) -> String {
    let noun = if n == N::from(1) { one } else { many };
    format!("{n} {noun}")
}

/// `5`, `5 and 20`, `5, 20 and 30`: a list as a sentence names it.
pub fn and_list(items: &[String]) -> String {
    match items.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}
