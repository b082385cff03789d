//! The layout around a string parameter value: what the template or pretty-printed XML put
//! around the model's text, and what stays the model's (the module documentation of
//! [`schema`](super)).

use std::borrow::Cow;

/// `value` without one line break (`\n` or `\r\n`) at its end: the template's layout that put
/// the tag after it on a line of its own.
pub(crate) fn without_line_break(value: &str) -> &str {
    value
        .strip_suffix("\r\n")
        .or_else(|| value.strip_suffix('\n'))
        .unwrap_or(value)
}

/// A string value without the layout around it. The templates write `<tag>\nVALUE\n</tag>`:
/// the one newline after the opening tag and the one before the closing tag go. When the
/// closing tag stands indented on a line of its own, the XML is pretty-printed: its indentation
/// is layout too, and the value is dedented (the leading whitespace its non-blank lines share is
/// removed, as Python's `textwrap.dedent` does; blank lines become empty). Other whitespace is
/// the value's own: with the closing tag at the start of its line, the indentation of
/// `    return x` stays, as a code editing tool needs it. A value of white space alone that does
/// not begin with a line break is kept as written (`\t\r\n ` is the model's value).
pub(super) fn string_text(raw: &str) -> Cow<'_, str> {
    // White space alone, begun on the tag's line, is the model's value (an edit tool's `\t`):
    // a layout starts with a line break.
    if raw.trim().is_empty() && !raw.starts_with(['\n', '\r']) {
        return Cow::Borrowed(raw);
    }
    let close_indent = raw.len() - raw.trim_end_matches([' ', '\t']).len();
    let before_indent = &raw[..raw.len() - close_indent];
    let pretty = close_indent > 0 && before_indent.ends_with('\n');
    let value = if pretty {
        &before_indent[..before_indent.len() - 1]
    } else {
        raw
    };
    let opened = value
        .strip_prefix("\r\n")
        .or_else(|| value.strip_prefix('\n'));
    if pretty {
        let value = opened.unwrap_or(value);
        return Cow::Owned(dedent(value.strip_suffix('\r').unwrap_or(value)));
    }
    // The template's layout is a newline on each side (`>\nvalue\n<`); an inline value's one
    // newline at either end is the model's (`return 1\n` for an exact-match edit).
    let closed = opened.and_then(|v| v.strip_suffix("\r\n").or_else(|| v.strip_suffix('\n')));
    Cow::Borrowed(match (opened, closed) {
        (_, Some(inner)) => inner,
        (Some(""), None) => "",
        _ => value,
    })
}

/// `text` without the leading whitespace its non-blank lines share; blank lines made empty.
fn dedent(text: &str) -> String {
    let indent_of = |line: &str| line.len() - line.trim_start_matches([' ', '\t']).len();
    let is_blank = |line: &str| line.trim_matches([' ', '\t', '\r']).is_empty();
    let mut common: Option<&str> = None;
    for line in text.split('\n').filter(|line| !is_blank(line)) {
        let indent = &line[..indent_of(line)];
        common = Some(match common {
            None => indent,
            Some(shared) => {
                let same = shared
                    .bytes()
                    .zip(indent.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                &shared[..same]
            }
        });
    }
    let common = common.unwrap_or_default();
    let lines: Vec<&str> = text
        .split('\n')
        .map(|line| {
            if is_blank(line) {
                ""
            } else {
                &line[common.len()..]
            }
        })
        .collect();
    lines.join("\n")
}
