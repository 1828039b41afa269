//! File names (and other text from the corpus) as a terminal or a Markdown reader may show
//! them: a name is bytes chosen by whoever made the file, and an escape sequence in it
//! would otherwise recolour, retitle or rewrite the operator's terminal, or hide text in a
//! PR comment. Control characters (C0, DEL, C1) and the bidirectional overrides become
//! visible `\xNN` / `\u{NNNN}` escapes; everything else, non-ASCII letters included, is kept.

use std::borrow::Cow;

/// `text` with every control or bidi-override character written as an escape.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !needs_escape(c) {
            out.push(c);
        } else if (c as u32) < 0x100 {
            out.push_str(&format!("\\x{:02x}", c as u32));
        } else {
            out.push_str(&format!("\\u{{{:04x}}}", c as u32));
        }
    }
    Cow::Owned(out)
}

/// [`escape_controls`] of a path's lossy text.
pub fn path(p: &std::path::Path) -> String {
    escape_controls(&p.to_string_lossy()).into_owned()
}

fn needs_escape(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_become_visible_and_letters_stay() {
        assert_eq!(escape_controls("a\u{1b}[31mred\u{7}.max"), "a\\x1b[31mred\\x07.max");
        assert_eq!(escape_controls("tab\there\nnl"), "tab\\x09here\\x0anl");
        assert_eq!(escape_controls("\u{9b}2J \u{202e}xam.exe"), "\\x9b2J \\u{202e}xam.exe");
        assert!(matches!(escape_controls("кубик 의자.max"), Cow::Borrowed("кубик 의자.max")));
    }
}
