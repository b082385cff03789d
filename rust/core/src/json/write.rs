//! Compact JSON output, byte for byte what `json.dumps(v, separators=(",", ":"),
//! ensure_ascii=False)` writes.

use super::view::{JsonKind, JsonView};

/// Serialises `value` compactly, keeping non-ASCII text as is.
pub fn to_compact_json<V: JsonView>(value: &V) -> String {
    let mut out = String::new();
    write_compact_json(value, &mut out, 0);
    out
}

/// Past this depth a value is written as `null` rather than recursing further; the inputs
/// come from parsers limited to 256 levels, so only hostile Python objects get here.
const MAX_WRITE_DEPTH: usize = 512;

fn write_compact_json<V: JsonView>(value: &V, out: &mut String, depth: usize) {
    if depth > MAX_WRITE_DEPTH {
        out.push_str("null");
        return;
    }
    match value.kind() {
        JsonKind::Null | JsonKind::Other => out.push_str("null"),
        JsonKind::Bool => out.push_str(if value.as_bool() == Some(true) {
            "true"
        } else {
            "false"
        }),
        JsonKind::Number => match value.number_text() {
            Some(text) => out.push_str(&text),
            // Shown, not lost: the raw text of a call that holds such a number says so.
            None => write_json_string("<an integer too long to write>", out),
        },
        JsonKind::String => write_json_string(&value.string_lossy().unwrap_or_default(), out),
        JsonKind::Array => {
            out.push('[');
            for (i, item) in value.items().iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_compact_json(item, out, depth + 1);
            }
            out.push(']');
        }
        JsonKind::Object => {
            out.push('{');
            for (i, (key, item)) in value.entries().iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json_string(key, out);
                out.push(':');
                write_compact_json(item, out, depth + 1);
            }
            out.push('}');
        }
    }
}

/// Writes `s` as a JSON string literal, escaping only what JSON requires.
pub fn write_json_string(s: &str, out: &mut String) {
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    let mut run_start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if !matches!(b, b'"' | b'\\' | 0..=0x1F) {
            continue;
        }
        out.push_str(&s[run_start..i]);
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            _ => push_control_escape(b, out),
        }
        run_start = i + 1;
    }
    out.push_str(&s[run_start..]);
    out.push('"');
}

/// Appends the JSON escape of the control character `b` (0x00-0x1F): the short form where JSON
/// has one (`\n`), else `\u00XX`.
pub(super) fn push_control_escape(b: u8, out: &mut String) {
    match b {
        b'\n' => out.push_str("\\n"),
        b'\r' => out.push_str("\\r"),
        b'\t' => out.push_str("\\t"),
        0x08 => out.push_str("\\b"),
        0x0C => out.push_str("\\f"),
        _ => out.push_str(&format!("\\u{b:04x}")),
    }
}

/// Formats a float exactly as Python's `repr(float)` (and so `json.dumps`) does.
pub fn python_float_repr(value: f64) -> String {
    if value.is_nan() {
        return "NaN".to_owned();
    }
    if value.is_infinite() {
        return if value > 0.0 { "Infinity" } else { "-Infinity" }.to_owned();
    }
    if value == 0.0 {
        return if value.is_sign_negative() {
            "-0.0"
        } else {
            "0.0"
        }
        .to_owned();
    }
    // Rust's `{:e}` gives the shortest round-trip digits, like Python's repr.
    let mut scientific = format!("{:e}", value);
    let shortest_digits = scientific
        .split_once('e')
        .map_or(0, |(m, _)| m.bytes().filter(u8::is_ascii_digit).count());
    // Two candidates of that length can both round-trip only when the digits are as fine as
    // the float's spacing (16 or more). Where the value lies exactly between them, Rust takes
    // the upper one and Python the even one; Rust's fixed precision rounds half to even.
    if shortest_digits >= 16 {
        let even = format!("{:.*e}", shortest_digits - 1, value);
        if even.parse::<f64>() == Ok(value) {
            scientific = even;
        }
    }
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if (-4..16).contains(&exponent) {
        let point = exponent + 1;
        let body = if point <= 0 {
            format!("0.{}{}", "0".repeat((-point) as usize), digits)
        } else if point as usize >= digits.len() {
            format!("{}{}.0", digits, "0".repeat(point as usize - digits.len()))
        } else {
            let (int, frac) = digits.split_at(point as usize);
            format!("{int}.{frac}")
        };
        format!("{sign}{body}")
    } else {
        let (first, rest) = digits.split_at(1);
        let mantissa = if rest.is_empty() {
            first.to_owned()
        } else {
            format!("{first}.{rest}")
        };
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        format!("{sign}{mantissa}e{exp_sign}{:02}", exponent.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_repr_matches_python() {
        let cases = [
            (1.0, "1.0"),
            (0.1, "0.1"),
            (-2.5, "-2.5"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (123456789012345.6, "123456789012345.6"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (1.2345e-7, "1.2345e-07"),
            (1e300, "1e+300"),
            (-0.0, "-0.0"),
            (f64::INFINITY, "Infinity"),
            (4.0, "4.0"),
            (1e15, "1000000000000000.0"),
            // Exactly between two shortest candidates: Python takes the even one.
            (70368744177664.62, "70368744177664.62"),
        ];
        for (value, expected) in cases {
            assert_eq!(python_float_repr(value), expected, "{value:e}");
        }
    }

    #[test]
    fn strings_escape_like_json_dumps() {
        let mut out = String::new();
        write_json_string("a\"b\\c\nd\u{1}é~", &mut out);
        assert_eq!(out, "\"a\\\"b\\\\c\\nd\\u0001é~\"");
    }
}
