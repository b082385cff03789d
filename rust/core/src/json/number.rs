//! JSON numbers: integers that fit an `i64` built as such, larger ones as their digits,
//! anything with a fraction or exponent as a correctly rounded `f64`.

use super::builder::JsonBuilder;
use super::error::{ParseError, SyntaxError, SyntaxErrorKind};

/// Reads the number at `data[start]` (a `-` or a digit) into `b`; returns the value and the
/// index after the number. `finite`: a number beyond any float is an error, not infinity.
pub(super) fn number<B: JsonBuilder>(
    data: &[u8],
    start: usize,
    b: &mut B,
    finite: bool,
) -> Result<(B::Value, usize), ParseError<B::Error>> {
    let mut i = start;
    let negative = data[i] == b'-';
    if negative {
        i += 1;
    }
    let invalid = |at: usize| SyntaxError {
        kind: if at >= data.len() {
            SyntaxErrorKind::UnexpectedEnd
        } else {
            SyntaxErrorKind::InvalidNumber
        },
        offset: at,
    };
    let int_start = i;
    match data.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            while let Some(b'0'..=b'9') = data.get(i) {
                i += 1;
            }
        }
        _ => return Err(invalid(i).into()),
    }
    let int_end = i;
    let mut is_float = false;
    if data.get(i) == Some(&b'.') {
        is_float = true;
        i += 1;
        if !matches!(data.get(i), Some(b'0'..=b'9')) {
            return Err(invalid(i).into());
        }
        while let Some(b'0'..=b'9') = data.get(i) {
            i += 1;
        }
    }
    if let Some(b'e' | b'E') = data.get(i) {
        is_float = true;
        i += 1;
        if let Some(b'+' | b'-') = data.get(i) {
            i += 1;
        }
        if !matches!(data.get(i), Some(b'0'..=b'9')) {
            return Err(invalid(i).into());
        }
        while let Some(b'0'..=b'9') = data.get(i) {
            i += 1;
        }
    }
    let end = i;
    // SAFETY: ASCII digits and signs.
    let text = unsafe { std::str::from_utf8_unchecked(&data[start..i]) };
    if is_float {
        // Rust's parser is correctly rounded, like CPython's; overflow gives ±inf as in
        // `json.loads`, unless `finite`.
        let value: f64 = text.parse().map_err(|_| invalid(start))?;
        if finite && value.is_infinite() {
            let kind = SyntaxErrorKind::NumberOutOfRange;
            return Err(SyntaxError {
                kind,
                offset: start,
            }
            .into());
        }
        return b.float(value).map(|v| (v, end)).map_err(ParseError::Build);
    }
    if int_end - int_start <= 18 {
        let mut value: i64 = 0;
        for &d in &data[int_start..int_end] {
            value = value * 10 + (d - b'0') as i64;
        }
        return b
            .int(if negative { -value } else { value })
            .map(|v| (v, end))
            .map_err(ParseError::Build);
    }
    match text.parse::<i64>() {
        Ok(value) => b.int(value),
        Err(_) => b.big_int(text),
    }
    .map(|v| (v, end))
    .map_err(ParseError::Build)
}
