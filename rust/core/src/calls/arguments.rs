//! The arguments rule (docs/parsing.md): whatever a call's arguments value is, it becomes a JSON
//! object or a failure that says what and where.

use crate::json::{
    deferrable_object, parse, JsonBuilder, JsonKind, JsonView, ParseError, ParseOptions,
    SyntaxError,
};

use super::FailureKind;

/// A failure while decoding text: where, and what.
pub struct DecodeFailure<E> {
    pub kind: FailureKind,
    pub detail: String,
    /// Byte offset within the decoded text.
    pub byte_offset: Option<usize>,
    pub build: Option<E>,
}

fn syntax_failure<E>(kind: FailureKind, detail_prefix: &str, e: ParseError<E>) -> DecodeFailure<E> {
    match e {
        ParseError::Syntax(SyntaxError { kind: k, offset }) => DecodeFailure {
            kind,
            // A refused value is valid JSON: its message stands alone.
            detail: if k.is_refusal() {
                k.message().into_owned()
            } else {
                format!("{detail_prefix}{}", k.message())
            },
            byte_offset: Some(offset),
            build: None,
        },
        ParseError::Build(e) => DecodeFailure {
            kind,
            detail: String::new(),
            byte_offset: None,
            build: Some(e),
        },
    }
}

/// The arguments rule: any arguments value becomes an object, or a failure.
pub fn normalize_arguments<B>(
    builder: &mut B,
    arguments: Option<B::Value>,
    options: ParseOptions,
) -> Result<B::Value, DecodeFailure<B::Error>>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    let Some(arguments) = arguments else {
        return builder.empty_object().map_err(build_failure);
    };
    match arguments.kind() {
        JsonKind::Object => Ok(arguments),
        JsonKind::Null => builder.empty_object().map_err(build_failure),
        JsonKind::String => {
            let Some(text) = arguments.as_str() else {
                return Err(arguments_failure("arguments string holds lone surrogates"));
            };
            decode_arguments_text(builder, text, options)
        }
        other => Err(arguments_failure(&format!(
            "arguments must be a JSON object, got {}",
            other.name()
        ))),
    }
}

/// The builder's own failure while building arguments.
fn build_failure<E>(e: E) -> DecodeFailure<E> {
    DecodeFailure {
        kind: FailureKind::Arguments,
        detail: String::new(),
        byte_offset: None,
        build: Some(e),
    }
}

fn arguments_failure<E>(detail: &str) -> DecodeFailure<E> {
    DecodeFailure {
        kind: FailureKind::Arguments,
        detail: detail.to_owned(),
        byte_offset: None,
        build: None,
    }
}

const JSON_WHITESPACE: [char; 4] = [' ', '\t', '\n', '\r'];

/// The arguments rule for arguments given as JSON text (a string value, or a double-encoded one).
pub fn decode_arguments_text<B>(
    builder: &mut B,
    text: &str,
    options: ParseOptions,
) -> Result<B::Value, DecodeFailure<B::Error>>
where
    B: JsonBuilder,
    B::Value: JsonView,
{
    if text.trim_matches(JSON_WHITESPACE).is_empty() {
        return builder.empty_object().map_err(build_failure);
    }
    let start = text.len() - text.trim_start_matches(JSON_WHITESPACE).len();
    if let Some(end) = deferrable_object(builder, text, start, 0) {
        if text[end..].trim_start_matches(JSON_WHITESPACE).is_empty() {
            return builder
                .checked_object(&text[start..end])
                .map_err(build_failure);
        }
    }
    let value = parse(text, builder, options)
        .map_err(|e| syntax_failure(FailureKind::Arguments, "invalid JSON in arguments: ", e))?;
    match value.kind() {
        JsonKind::Object => Ok(value),
        JsonKind::Null => builder.empty_object().map_err(build_failure),
        JsonKind::String => {
            // Double-encoded: decode once more, no further.
            let inner = value.as_str().unwrap_or_default();
            let decoded = parse(inner, builder, options).map_err(|e| {
                let mut failure =
                    syntax_failure(FailureKind::Arguments, "invalid JSON in arguments: ", e);
                failure.byte_offset = None;
                failure
            })?;
            match decoded.kind() {
                JsonKind::Object => Ok(decoded),
                JsonKind::Null => builder.empty_object().map_err(build_failure),
                other => Err(arguments_failure(&format!(
                    "arguments must be a JSON object, got {} (double-encoded)",
                    other.name()
                ))),
            }
        }
        other => Err(arguments_failure(&format!(
            "arguments must be a JSON object, got {}",
            other.name()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{to_compact_json, DeferringBuilder, Value, ValueBuilder};

    /// What decoding gave, comparable across builders: the value, or the failure's text.
    fn decoded(result: Result<Value, DecodeFailure<std::convert::Infallible>>) -> String {
        match result {
            Ok(value) => format!("ok {}", to_compact_json(&value)),
            Err(f) => format!("{:?} {} {:?}", f.kind, f.detail, f.byte_offset),
        }
    }

    #[test]
    fn deferred_arguments_decode_like_built_ones() {
        let texts = [
            "",
            "  ",
            "{}",
            r#" {"a": 1} "#,
            r#"{"a": [1, {"b": "é"}], "a": 2}"#,
            r#"{"a": 1} x"#,
            r#"{"a": 1}{}"#,
            r#"{"a": 1,}"#,
            r#"{'a': 1}"#,
            "null",
            "[1]",
            "7",
            r#""{\"a\": 1}""#,
            r#""[1]""#,
            r#"{"a": "\ud800"}"#,
            r#"{"a": 1e400}"#,
            r#"{"a": [1, -1.5e+999]}"#,
        ];
        for lenient in [false, true] {
            let options = ParseOptions::json(lenient);
            for text in texts {
                let want = decode_arguments_text(&mut ValueBuilder, text, options);
                let got = decode_arguments_text(&mut DeferringBuilder, text, options);
                let deferred = matches!(got, Ok(Value::Deferred(_)));
                // (A number beyond any float is valid JSON that arguments refuse.)
                let refused = want.is_err();
                assert_eq!(decoded(got), decoded(want), "{text:?} lenient={lenient}");
                let clean_object = text.trim().starts_with('{') && strict_object(text) && !refused;
                assert_eq!(deferred, clean_object, "{text:?}");
            }
        }
    }

    fn strict_object(text: &str) -> bool {
        parse(text, &mut ValueBuilder, ParseOptions::default())
            .is_ok_and(|v| v.kind() == JsonKind::Object)
    }
}
