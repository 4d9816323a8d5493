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

/// Runs of consecutive numbers in `items` (in the order given) as (first, last): sectors 8 to
/// 15, a page's line pointers 1 to 9, told in one short phrase.
pub fn runs<T: Copy + Into<u64>>(items: &[T]) -> alloc::vec::Vec<(T, T)> {
    let mut out: alloc::vec::Vec<(T, T)> = alloc::vec::Vec::new();
    for &x in items {
        match out.last_mut() {
            Some(r) if r.1.into().checked_add(1) == Some(x.into()) => r.1 = x,
            _ => out.push((x, x)),
        }
    }
    out
}

/// [`runs`] each as `n` or `first-last`.
pub fn run_texts<T: Copy + Into<u64> + core::fmt::Display>(items: &[T]) -> alloc::vec::Vec<String> {
    runs(items)
        .into_iter()
        .map(|(a, b)| {
            if a.into() == b.into() {
                format!("{a}")
            } else {
                format!("{a}-{b}")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_fold_consecutive_numbers_in_the_order_given() {
        assert_eq!(run_texts(&[8u32, 9, 10, 15]), ["8-10", "15"]);
        assert_eq!(runs(&[3u16, 5, 6]), [(3, 3), (5, 6)]);
        assert!(runs::<u32>(&[]).is_empty());
    }
}
