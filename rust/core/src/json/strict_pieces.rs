//! JSON text read with raw control characters in its strings (model text), made strict piece
//! by piece: a stream forwards a call's argument bytes as they come, and the pieces must join
//! to JSON that any strict parser reads, however the text was cut.

use std::borrow::Cow;

use super::plain_run::plain_run;
use super::write::push_control_escape;

/// Where the next piece of a JSON text resumes: inside a string or not, and just after a
/// backslash.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StrictPieces {
    in_string: bool,
    escaped: bool,
}

impl StrictPieces {
    /// Resumes inside a string, just after a backslash when `escaped`.
    pub fn in_string(escaped: bool) -> Self {
        Self {
            in_string: true,
            escaped,
        }
    }

    /// `piece`, the next bytes of the text, with every raw control character inside a string
    /// escaped (a raw line feed becomes `\n`); borrowed when there is none. Whitespace between
    /// tokens stays as written.
    pub fn next<'a>(&mut self, piece: &'a str) -> Cow<'a, str> {
        let bytes = piece.as_bytes();
        let mut escaped: Option<String> = None;
        // Bytes of `piece` before this are in `escaped`.
        let mut copied = 0;
        let mut i = 0;
        while i < bytes.len() {
            if self.escaped {
                self.escaped = false;
                i += 1;
            } else if !self.in_string {
                let Some(quote) = memchr::memchr(b'"', &bytes[i..]) else {
                    break;
                };
                self.in_string = true;
                i += quote + 1;
            } else {
                let (end, _) = plain_run(bytes, i, b'"');
                let Some(&c) = bytes.get(end) else {
                    break;
                };
                match c {
                    b'"' => self.in_string = false,
                    b'\\' => self.escaped = true,
                    _ => {
                        let out =
                            escaped.get_or_insert_with(|| String::with_capacity(piece.len() + 8));
                        out.push_str(&piece[copied..end]);
                        push_control_escape(c, out);
                        copied = end + 1;
                    }
                }
                i = end + 1;
            }
        }
        match escaped {
            None => Cow::Borrowed(piece),
            Some(mut out) => {
                out.push_str(&piece[copied..]);
                Cow::Owned(out)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_controls_in_strings_only_at_every_cut() {
        let text = "{\"a\": \"x\ny\t\\\"z\u{1}\",\n\t\"b\\\\\": [\"\r\"]}";
        let want = "{\"a\": \"x\\ny\\t\\\"z\\u0001\",\n\t\"b\\\\\": [\"\\r\"]}";
        for cut in 0..=text.len() {
            if !text.is_char_boundary(cut) {
                continue;
            }
            let mut pieces = StrictPieces::default();
            let joined = pieces.next(&text[..cut]).into_owned() + &pieces.next(&text[cut..]);
            assert_eq!(joined, want, "cut at {cut}");
        }
        let mut pieces = StrictPieces::default();
        let one_byte_at_a_time: String = text
            .split("")
            .map(|c| pieces.next(c).into_owned())
            .collect();
        assert_eq!(one_byte_at_a_time, want);
    }

    #[test]
    fn borrows_a_piece_without_raw_controls() {
        let mut pieces = StrictPieces::default();
        assert!(matches!(
            pieces.next("{\n  \"a\": \"b\\n\"}"),
            Cow::Borrowed(_)
        ));
        let mut inside = StrictPieces::in_string(true);
        assert_eq!(inside.next("\"\n\"\n"), "\"\\n\"\n");
    }
}
