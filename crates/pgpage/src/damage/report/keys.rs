//! Keys as the report writes them: one key, and a list of keys with runs of integers folded.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// The lost keys, one after another; runs of consecutive one-column integer keys as
/// `first-last`, so a page's hundred serial ids read as one range.
pub(super) fn keys_text(keys: &[Vec<Option<String>>]) -> String {
    // A redacted report's keys are empty arrays: only their number is said.
    if !keys.is_empty() && keys.iter().all(Vec::is_empty) {
        return if keys.len() == 1 {
            String::from("1 key (value redacted)")
        } else {
            format!("{} keys (values redacted)", keys.len())
        };
    }
    let int = |k: &Vec<Option<String>>| match k.as_slice() {
        [Some(v)] => v.parse::<i64>().ok(),
        _ => None,
    };
    let mut parts: Vec<String> = Vec::new();
    let mut run: Option<(i64, i64)> = None;
    let close = |run: &mut Option<(i64, i64)>, parts: &mut Vec<String>| {
        if let Some((first, last)) = run.take() {
            parts.push(if first == last {
                first.to_string()
            } else {
                format!("{first}-{last}")
            });
        }
    };
    for k in keys {
        match (int(k), run) {
            (Some(v), Some((first, last))) if last.checked_add(1) == Some(v) => {
                run = Some((first, v));
            }
            (Some(v), _) => {
                close(&mut run, &mut parts);
                run = Some((v, v));
            }
            (None, _) => {
                close(&mut run, &mut parts);
                parts.push(key_text(k));
            }
        }
    }
    close(&mut run, &mut parts);
    parts.join(", ")
}

pub(super) fn key_text(k: &[Option<String>]) -> String {
    if k.is_empty() {
        return String::from("a key (value redacted)");
    }
    let parts: Vec<String> = k
        .iter()
        .map(|v| {
            v.as_deref()
                .map_or_else(|| String::from("NULL"), crate::damage::flips::visible)
        })
        .collect();
    if parts.len() == 1 {
        parts.concat()
    } else {
        format!("({})", parts.join(", "))
    }
}
