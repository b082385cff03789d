//! The strict JSON parser against `serde_json`: where both accept, the values are equal; they
//! accept and reject the same inputs, but for the documented differences (`loads` follows
//! `json.loads`): lone surrogates (`"\ud800"`) are kept, numbers too large for a float give
//! ±inf, and nesting is limited to 256 levels (serde_json's default limit is 128). Repair mode
//! is checked to change nothing that strict parsing accepts.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolwire_core::json::{parse, ParseError, ParseOptions, SyntaxErrorKind, Value, ValueBuilder};

fuzz_target!(|data: &[u8]| {
    // The parser reads `&str`: bytes input is validated as UTF-8 before it (a separate error).
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let ours = parse(text, &mut ValueBuilder, ParseOptions::default());
    let theirs = serde_json::from_str::<serde_json::Value>(text);
    match (&ours, &theirs) {
        (Ok(a), Ok(b)) => assert!(same(a, b), "values differ: {a:?} vs {b:?}"),
        (Err(ParseError::Syntax(e)), Ok(b)) => {
            assert!(
                e.kind == SyntaxErrorKind::TooDeep && serde_depth(b) > 256,
                "we reject what serde_json accepts: {e} for {b:?}"
            );
        }
        (Ok(a), Err(e)) => {
            // Read from serde_json's message too: a repeated key may have dropped the value
            // at fault from ours.
            let message = e.to_string();
            let documented = (message.starts_with("recursion limit exceeded") && depth(a) > 128)
                || message.starts_with("number out of range")
                || has_surrogate_escape(text);
            assert!(documented, "we accept what serde_json rejects ({e}): {a:?}");
        }
        (Err(ParseError::Syntax(e)), Err(_)) => assert!(e.offset <= text.len()),
        (Err(ParseError::Build(never)), _) => match *never {},
    }
    if let Ok(strict) = &ours {
        let Ok(repaired) = parse(text, &mut ValueBuilder, ParseOptions::json(true)) else {
            panic!("repair rejects valid JSON");
        };
        assert_eq!(strict, &repaired);
    }
});

/// Equal as `json.loads` results: numbers by value, objects as maps (both keep the last of
/// repeated keys).
fn same(a: &Value, b: &serde_json::Value) -> bool {
    use serde_json::Value as J;
    match (a, b) {
        (Value::Null, J::Null) => true,
        (Value::Bool(x), J::Bool(y)) => x == y,
        (Value::Int(x), J::Number(n)) => {
            n.as_i64() == Some(*x) || (*x == 0 && n.as_f64() == Some(0.0))
        }
        (Value::BigInt(digits), J::Number(n)) => match n.as_u64() {
            Some(u) => digits.as_ref() == u.to_string(),
            // serde_json reads integers beyond u64 as floats.
            None => n.as_f64() == digits.parse::<f64>().ok(),
        },
        (Value::Float(x), J::Number(n)) => n
            .as_f64()
            .is_some_and(|y| y.to_bits() == x.to_bits() || (*x == 0.0 && y == 0.0)),
        (Value::Str(x), J::String(y)) => x.as_ref() == y,
        (Value::Array(xs), J::Array(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same(x, y))
        }
        (Value::Object(members), J::Object(map)) => {
            members.len() == map.len()
                && members
                    .iter()
                    .all(|(k, v)| map.get(k.as_ref()).is_some_and(|w| same(v, w)))
        }
        _ => false,
    }
}

fn depth(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(members) => 1 + members.iter().map(|(_, v)| depth(v)).max().unwrap_or(0),
        _ => 0,
    }
}

fn serde_depth(value: &serde_json::Value) -> usize {
    use serde_json::Value as J;
    match value {
        J::Array(items) => 1 + items.iter().map(serde_depth).max().unwrap_or(0),
        J::Object(map) => 1 + map.values().map(serde_depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// A `\uD800`–`\uDFFF` escape: paired or not, serde_json's verdict on it may differ from
/// `json.loads`, which keeps lone surrogates.
fn has_surrogate_escape(text: &str) -> bool {
    text.as_bytes().windows(4).any(|w| {
        w[0] == b'\\'
            && w[1] == b'u'
            && matches!(w[2], b'd' | b'D')
            && matches!(w[3], b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F')
    })
}
