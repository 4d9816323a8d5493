//! COPY TO's field quoting (commands/copyto.c CopyAttributeOutCSV and
//! CopyAttributeOutText) with the default options: CSV with `,` and `"`, an empty NULL; text
//! with tab, `\N` for NULL.

use alloc::string::String;

/// The two COPY formats `rows` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyFormat {
    Csv,
    Text,
}

/// The delimiter written before every field but the first.
pub fn delimiter(format: CopyFormat) -> char {
    match format {
        CopyFormat::Csv => ',',
        CopyFormat::Text => '\t',
    }
}

/// What a NULL field prints as.
pub fn null(format: CopyFormat) -> &'static str {
    match format {
        CopyFormat::Csv => "",
        CopyFormat::Text => "\\N",
    }
}

/// Quotes or escapes, in place, the field whose output text is `out[at..]` (written there by
/// a value's output function, so that the common field, which needs neither, is never
/// copied). `single_attr`: the row has one column.
pub fn finish_field(format: CopyFormat, out: &mut String, at: usize, single_attr: bool) {
    let Some(field) = out.get(at..) else {
        return;
    };
    let changes = match format {
        CopyFormat::Csv => csv_needs_quotes(field, single_attr),
        CopyFormat::Text => text_needs_escapes(field),
    };
    if changes {
        let field = out.split_off(at);
        match format {
            CopyFormat::Csv => csv(&field, single_attr, out),
            CopyFormat::Text => text(&field, out),
        }
    }
}

/// CopyAttributeOutCSV: quoted when it equals the NULL string (empty), is `\.` alone in a
/// one-column row, or holds the delimiter, the quote, CR or LF; quotes doubled inside.
pub fn csv(s: &str, single_attr: bool, out: &mut String) {
    if !csv_needs_quotes(s, single_attr) {
        out.push_str(s);
        return;
    }
    out.push('"');
    // The quote is ASCII, so the runs between quotes are whole UTF-8.
    let mut from = 0;
    for (i, b) in s.bytes().enumerate() {
        if b == b'"' {
            out.push_str(s.get(from..=i).unwrap_or_default());
            from = i;
        }
    }
    out.push_str(s.get(from..).unwrap_or_default());
    out.push('"');
}

/// Whether CopyAttributeOutCSV quotes `s`.
pub fn csv_needs_quotes(s: &str, single_attr: bool) -> bool {
    s.is_empty() || (single_attr && s == "\\.") || has_csv_special(s.as_bytes())
}

/// Whether `s` holds `,` `"` LF or CR: eight bytes at a time (the test of every text
/// field), each byte xor'd with each special and tested for zero (Bit Twiddling Hacks'
/// haszero).
fn has_csv_special(s: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const SPECIALS: [u64; 4] = [ONES * 0x2c, ONES * 0x22, ONES * 0x0a, ONES * 0x0d];
    let zero_in = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS != 0;
    let mut words = s.chunks_exact(8);
    for w in &mut words {
        let v = u64::from_le_bytes(w.try_into().unwrap_or([0xff; 8]));
        if SPECIALS.iter().any(|&c| zero_in(v ^ c)) {
            return true;
        }
    }
    words
        .remainder()
        .iter()
        .any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r'))
}

/// CopyAttributeOutText's escape for a byte, if it has one.
fn text_escape(b: u8) -> Option<&'static str> {
    Some(match b {
        0x08 => "\\b",
        0x0c => "\\f",
        b'\n' => "\\n",
        b'\r' => "\\r",
        b'\t' => "\\t",
        0x0b => "\\v",
        b'\\' => "\\\\",
        _ => return None,
    })
}

/// Whether CopyAttributeOutText changes `s`.
pub fn text_needs_escapes(s: &str) -> bool {
    s.bytes().any(|b| text_escape(b).is_some())
}

/// CopyAttributeOutText: backslash escapes for \b \f \n \r \t \v and the backslash; other
/// control characters pass as they are.
pub fn text(s: &str, out: &mut String) {
    // Every escaped byte is ASCII, so the runs between them are whole UTF-8.
    let mut from = 0;
    for (i, b) in s.bytes().enumerate() {
        if let Some(esc) = text_escape(b) {
            out.push_str(s.get(from..i).unwrap_or_default());
            out.push_str(esc);
            from = i.saturating_add(1);
        }
    }
    out.push_str(s.get(from..).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(format: CopyFormat, fields: &[Option<&str>]) -> String {
        let mut s = String::new();
        for (i, f) in fields.iter().enumerate() {
            if i > 0 {
                s.push(delimiter(format));
            }
            match f {
                Some(v) => {
                    let at = s.len();
                    s.push_str(v);
                    finish_field(format, &mut s, at, fields.len() == 1);
                }
                None => s.push_str(null(format)),
            }
        }
        s.push('\n');
        s
    }

    proptest::proptest! {
        #[test]
        fn specials_found_as_a_byte_scan_finds_them(s in "[a-z,\"\r\n\\\\.é]{0,40}") {
            let slow = s.bytes().any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r'));
            proptest::prop_assert_eq!(has_csv_special(s.as_bytes()), slow);
        }
    }

    // Expected lines: what COPY ... TO STDOUT prints for the same fields.
    #[test]
    fn csv_and_text_rows() {
        assert_eq!(
            row(
                CopyFormat::Csv,
                &[Some("a,b"), None, Some(""), Some("say \"hi\""), Some("x")]
            ),
            "\"a,b\",,\"\",\"say \"\"hi\"\"\",x\n"
        );
        assert_eq!(
            row(
                CopyFormat::Text,
                &[Some("a\tb\\"), None, Some("line\nnext é\u{b}")]
            ),
            "a\\tb\\\\\t\\N\tline\\nnext é\\v\n"
        );
        assert_eq!(row(CopyFormat::Csv, &[Some("\\.")]), "\"\\.\"\n");
        assert_eq!(row(CopyFormat::Csv, &[Some("\\."), None]), "\\.,\n");
    }
}
