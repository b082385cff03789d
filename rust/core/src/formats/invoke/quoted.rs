//! Markup a parameter value quotes whole. A value may hold a block or an invoke of the shape's
//! own markup (a file that documents the call syntax, a command that quotes a call), and the
//! closing tags inside it are the value's text. A shape that says so ([`Tags::quoted`]) counts
//! the opening and closing tags of blocks and invokes in a value, in every spelling, and only
//! a tag outside all of them can end the value. DeepSeek's DSML models write such values
//! (Dynamo's V4.1 tests); so would any model of the plain XML shapes that writes a file about
//! its own call syntax. The decoder and the stream machine read a value with the same
//! [`Depth`], so they find the same end. A value whose quoted markup never closes is read by
//! the flat rule (its first closing tag that markup follows), once the text has ended.
//!
//! [`Tags::quoted`]: super::Tags::quoted

use super::super::cursor::{DenseSearcher, Markers};

pub(crate) struct Quoted {
    /// The shape's parameter closing tag, its parameter tag, then the opening tags of blocks
    /// and invokes (`opens` of them), then their closing tags. A value is often dense with `<`
    /// (HTML, code), so they are searched with [`Seek::dense`](super::super::cursor::Seek::dense).
    pub markers: Markers,
    pub searcher: DenseSearcher,
    opens: usize,
}

impl Quoted {
    pub const fn new(markers: &'static [&'static str], opens: usize) -> Self {
        Self {
            markers: Markers::new(markers),
            searcher: DenseSearcher::new(),
            opens,
        }
    }
}

/// What one of [`Quoted::markers`] means in a value's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum InValue {
    /// The parameter's closing tag, outside all quoted markup: it ends the value where markup
    /// follows it.
    Close,
    /// A parameter tag outside all quoted markup.
    Parameter,
    /// Quoted markup, or a tag inside it: the value's text.
    Text,
}

/// How deep in quoted blocks and invokes a value's text is, as its markers are read in order.
/// A closing tag outside all of them is text too.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Depth(u32);

impl Depth {
    pub fn read(&mut self, quoted: &Quoted, pattern: usize) -> InValue {
        match pattern {
            0 | 1 if self.0 > 0 => InValue::Text,
            0 => InValue::Close,
            1 => InValue::Parameter,
            p if p < 2 + quoted.opens => {
                self.0 = self.0.saturating_add(1);
                InValue::Text
            }
            _ => {
                self.0 = self.0.saturating_sub(1);
                InValue::Text
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Depth, InValue, Quoted};
    use crate::formats::cursor::Seek;

    static QUOTED: Quoted = Quoted::new(
        &["</p>", "<p", "<calls>", "<invoke", "</calls>", "</invoke>"],
        2,
    );

    fn read(text: &str) -> Vec<InValue> {
        let mut depth = Depth::default();
        let mut from = 0;
        let mut seen = Vec::new();
        let mut seek = Seek::dense(&QUOTED.markers, &QUOTED.searcher);
        while let Some(found) = seek.find(text.as_bytes(), from) {
            seen.push(depth.read(&QUOTED, found.pattern));
            from = found.end;
        }
        seen
    }

    #[test]
    fn only_tags_outside_quoted_blocks_and_invokes_count() {
        use InValue::{Close, Parameter, Text};
        let quoted = "<calls><invoke a><p b>x</p></invoke></calls></p>";
        assert_eq!(read(quoted), [Text, Text, Text, Text, Text, Text, Close]);
        // An invoke quoted without its block, closes that close nothing, a parameter tag.
        let loose = "<invoke a></p></invoke></calls></invoke><p c></p>";
        assert_eq!(
            read(loose),
            [Text, Text, Text, Text, Text, Parameter, Close]
        );
    }
}
