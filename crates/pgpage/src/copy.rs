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

/// Appends one row: each field its output text or None for NULL, joined by the format's
/// delimiter and ended by "\n".
pub fn row<'a>(
    format: CopyFormat,
    fields: impl IntoIterator<Item = Option<&'a str>>,
    out: &mut String,
) {
    let fields: alloc::vec::Vec<Option<&str>> = fields.into_iter().collect();
    let single = fields.len() == 1;
    for (i, f) in fields.iter().enumerate() {
        match format {
            CopyFormat::Csv => {
                if i > 0 {
                    out.push(',');
                }
                if let Some(s) = f {
                    csv(s, single, out);
                }
            }
            CopyFormat::Text => {
                if i > 0 {
                    out.push('\t');
                }
                match f {
                    Some(s) => text(s, out),
                    None => out.push_str("\\N"),
                }
            }
        }
    }
    out.push('\n');
}

/// CopyAttributeOutCSV: quoted when it equals the NULL string (empty), is `\.` alone in a
/// one-column row, or holds the delimiter, the quote, CR or LF; quotes doubled inside.
pub fn csv(s: &str, single_attr: bool, out: &mut String) {
    let quote = s.is_empty()
        || (single_attr && s == "\\.")
        || s.bytes().any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r'));
    if !quote {
        out.push_str(s);
        return;
    }
    out.push('"');
    for c in s.chars() {
        if c == '"' {
            out.push('"');
        }
        out.push(c);
    }
    out.push('"');
}

/// CopyAttributeOutText: backslash escapes for \b \f \n \r \t \v and the backslash; other
/// control characters pass as they are.
pub fn text(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected lines: what COPY ... TO STDOUT prints for the same fields.
    #[test]
    fn csv_and_text_rows() {
        let mut s = String::new();
        row(
            CopyFormat::Csv,
            [Some("a,b"), None, Some(""), Some("say \"hi\""), Some("x")],
            &mut s,
        );
        assert_eq!(s, "\"a,b\",,\"\",\"say \"\"hi\"\"\",x\n");
        s.clear();
        row(
            CopyFormat::Text,
            [Some("a\tb\\"), None, Some("line\nnext")],
            &mut s,
        );
        assert_eq!(s, "a\\tb\\\\\t\\N\tline\\nnext\n");
        s.clear();
        row(CopyFormat::Csv, [Some("\\.")], &mut s);
        assert_eq!(s, "\"\\.\"\n");
    }
}
