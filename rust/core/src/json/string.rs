//! JSON strings: a run without escapes is borrowed from the input, one with escapes is
//! decoded into a scratch buffer the parser reuses.

use super::builder::JsonStr;
use super::error::{SyntaxError, SyntaxErrorKind};
use super::parser::ParseOptions;
use super::plain_run::plain_run;

/// Bytes reserved for the first string with escapes a parser decodes (at most what is left).
const SCRATCH_START: usize = 256;

/// Where a decoded string lives: a slice of the input, or the scratch buffer (when it had
/// escapes). Positions rather than borrows, so the parser stays free to continue.
#[derive(Clone, Copy)]
pub(super) enum StrRef {
    Input {
        start: usize,
        end: usize,
        ascii: bool,
    },
    Scratch {
        ascii: bool,
        surrogates: bool,
    },
}

impl StrRef {
    pub(super) fn resolve<'s>(self, data: &'s [u8], scratch: &'s [u8]) -> JsonStr<'s> {
        match self {
            // SAFETY: `read_string` only stops a run at an ASCII byte of the UTF-8 input.
            StrRef::Input { start, end, ascii } => unsafe {
                JsonStr::new_unchecked(&data[start..end], ascii, false)
            },
            // SAFETY: the scratch buffer holds input bytes and escapes encoded as UTF-8, or
            // WTF-8 where `surrogates` says so.
            StrRef::Scratch { ascii, surrogates } => unsafe {
                JsonStr::new_unchecked(scratch, ascii, surrogates)
            },
        }
    }
}

/// Reads the string whose opening `quote` is just before `start`; returns where it lives and
/// the index after its closing quote. Escapes are decoded into `scratch`.
pub(super) fn read_string(
    data: &[u8],
    start: usize,
    quote: u8,
    options: ParseOptions,
    scratch: &mut Vec<u8>,
) -> Result<(StrRef, usize), SyntaxError> {
    let unterminated = SyntaxError {
        kind: SyntaxErrorKind::UnterminatedString,
        offset: data.len(),
    };
    // Fast path: a run with no escape is borrowed from the input.
    let (mut i, mut ascii) = plain_run(data, start, quote);
    match data.get(i) {
        Some(&c) if c == quote => {
            let input = StrRef::Input {
                start,
                end: i,
                ascii,
            };
            return Ok((input, i + 1));
        }
        None => return Err(unterminated),
        _ => {}
    }
    scratch.clear();
    // Room for the common escaped string up front (arguments, texts with quotes): grown
    // piece by piece, it is reallocated at every doubling.
    scratch.reserve((data.len() - start).min(SCRATCH_START));
    scratch.extend_from_slice(&data[start..i]);
    let mut has_surrogates = false;
    loop {
        let Some(&c) = data.get(i) else {
            return Err(unterminated);
        };
        if c == quote {
            break;
        }
        match c {
            b'\\' => i = escape(data, i + 1, options.lenient, scratch, &mut has_surrogates)?,
            0..=0x1F if !options.accepts_raw_control(c) => {
                return Err(SyntaxError {
                    kind: SyntaxErrorKind::ControlCharacterInString,
                    offset: i,
                })
            }
            _ => {
                // The run up to the next escape is copied whole, as the fast path reads it.
                let (end, run_ascii) = plain_run(data, i + 1, quote);
                ascii &= c.is_ascii() && run_ascii;
                push_run(scratch, data, i, end);
                i = end;
            }
        }
    }
    let decoded = StrRef::Scratch {
        ascii: ascii && scratch.is_ascii(),
        surrogates: has_surrogates,
    };
    Ok((decoded, i + 1))
}

/// Decodes the escape whose backslash is at `i - 1` into `out`; returns the index after it.
fn escape(
    data: &[u8],
    i: usize,
    lenient: bool,
    out: &mut Vec<u8>,
    has_surrogates: &mut bool,
) -> Result<usize, SyntaxError> {
    let Some(&c) = data.get(i) else {
        return Err(SyntaxError {
            kind: SyntaxErrorKind::UnterminatedString,
            offset: data.len(),
        });
    };
    let simple = match c {
        b'"' => b'"',
        b'\\' => b'\\',
        b'/' => b'/',
        b'b' => 0x08,
        b'f' => 0x0C,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        b'\'' if lenient => b'\'',
        b'u' => {
            let first = hex4(data, i + 1)?;
            let mut next = i + 5;
            let code = if (0xD800..0xDC00).contains(&first)
                && data.get(next) == Some(&b'\\')
                && data.get(next + 1) == Some(&b'u')
            {
                let second = hex4(data, next + 2)?;
                if (0xDC00..0xE000).contains(&second) {
                    next += 6;
                    0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                } else {
                    first
                }
            } else {
                first
            };
            push_code_point(out, code, has_surrogates);
            return Ok(next);
        }
        _ => {
            return Err(SyntaxError {
                kind: SyntaxErrorKind::InvalidEscape,
                offset: i - 1,
            })
        }
    };
    out.push(simple);
    Ok(i + 1)
}

fn hex4(data: &[u8], i: usize) -> Result<u32, SyntaxError> {
    let error = SyntaxError {
        kind: SyntaxErrorKind::InvalidUnicodeEscape,
        offset: i.saturating_sub(2),
    };
    let digits = data.get(i..i + 4).ok_or(error)?;
    let mut value = 0u32;
    for &d in digits {
        let nibble = (d as char).to_digit(16).ok_or(error)?;
        value = (value << 4) | nibble;
    }
    Ok(value)
}

fn push_code_point(out: &mut Vec<u8>, code: u32, has_surrogates: &mut bool) {
    match char::from_u32(code) {
        Some(c) => {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
        None => {
            // A lone surrogate: keep it in WTF-8 form.
            *has_surrogates = true;
            out.extend_from_slice(&[
                0xE0 | (code >> 12) as u8,
                0x80 | ((code >> 6) & 0x3F) as u8,
                0x80 | (code & 0x3F) as u8,
            ]);
        }
    }
}

/// Appends `data[start..end]` to `out`. Runs between escapes are mostly a few bytes: one that
/// fits in 16 is copied as a whole 16-byte block, which compiles to two vector moves instead
/// of a call to `memcpy`, and the bytes past `end` are cut off again.
#[inline]
fn push_run(out: &mut Vec<u8>, data: &[u8], start: usize, end: usize) {
    let kept = out.len() + (end - start);
    match data[start..].first_chunk::<16>() {
        Some(block) if end - start <= 16 => {
            out.extend_from_slice(block);
            out.truncate(kept);
        }
        _ => out.extend_from_slice(&data[start..end]),
    }
}
