//! Escaping for HTML and XML text and attribute values. Every string that comes from a
//! run (paths, node names, messages) goes through here before it reaches a page.

/// Escapes `& < > " '` so the text is safe both as element content and inside a quoted
/// attribute, in HTML and in XML alike. Control characters other than tab/newline (which
/// XML 1.0 forbids even as references) are shown as the text `\xNN`, so a hostile name
/// cannot break `junit.xml` and a real one stays readable: the OLE stream
/// `\x05DocumentSummaryInformation` reads as such, not as `�DocumentSummaryInformation`.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{7f}' => out.push_str(&format!("\\x{:02x}", c as u32)),
            '\u{fffe}' | '\u{ffff}' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_quotes_and_controls_are_neutralised() {
        assert_eq!(escape("<a href=\"x\">'&'</a>"), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
        assert_eq!(escape("a\u{1}b\u{5}Summary"), "a\\x01b\\x05Summary");
        assert_eq!(escape("\u{ffff}"), "\u{fffd}");
        assert_eq!(escape("кубик 의자\tx\n"), "кубик 의자\tx\n");
    }
}
