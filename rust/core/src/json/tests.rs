use super::*;

fn strict(text: &str) -> Result<Value, SyntaxError> {
    parse(text, &mut ValueBuilder, ParseOptions::default()).map_err(|e| match e {
        ParseError::Syntax(s) => s,
        ParseError::Build(never) => match never {},
    })
}

fn lenient(text: &str) -> Result<Value, SyntaxError> {
    parse(text, &mut ValueBuilder, ParseOptions { lenient: true }).map_err(|e| match e {
        ParseError::Syntax(s) => s,
        ParseError::Build(never) => match never {},
    })
}

#[test]
fn scalars() {
    assert_eq!(strict("null").unwrap(), Value::Null);
    assert_eq!(strict(" true ").unwrap(), Value::Bool(true));
    assert_eq!(strict("-0").unwrap(), Value::Int(0));
    assert_eq!(strict("-0.0").unwrap(), Value::Float(-0.0));
    assert_eq!(strict("1e400").unwrap(), Value::Float(f64::INFINITY));
    assert_eq!(strict("9223372036854775807").unwrap(), Value::Int(i64::MAX));
    assert_eq!(
        strict("-9223372036854775808").unwrap(),
        Value::Int(i64::MIN)
    );
    assert_eq!(
        strict("123456789012345678901234567890").unwrap(),
        Value::BigInt("123456789012345678901234567890".into())
    );
    assert_eq!(strict("2.5E-3").unwrap(), Value::Float(0.0025));
}

#[test]
fn strings_and_escapes() {
    assert_eq!(strict(r#""a\nb\u00e9\/""#).unwrap(), Value::str("a\nbé/"));
    assert_eq!(strict(r#""\ud83d\ude00""#).unwrap(), Value::str("😀"));
    // A lone surrogate survives as WTF-8.
    assert_eq!(
        strict(r#""x\ud800""#).unwrap(),
        Value::WtfStr(vec![b'x', 0xED, 0xA0, 0x80].into())
    );
    assert_eq!(
        strict("\"a\tb\"").unwrap_err().kind,
        SyntaxErrorKind::ControlCharacterInString
    );
    assert_eq!(
        strict(r#""\x""#).unwrap_err().kind,
        SyntaxErrorKind::InvalidEscape
    );
    assert_eq!(
        strict(r#""abc"#).unwrap_err().kind,
        SyntaxErrorKind::UnterminatedString
    );
}

#[test]
fn text_between_escapes_is_copied_whole() {
    let long = "a longer run of plain text, é and 😀 included,";
    assert_eq!(
        strict(&format!(r#""\"{long}\" {long}\\{long}\u00e9x""#)).unwrap(),
        Value::str(&format!("\"{long}\" {long}\\{long}éx"))
    );
    let tab_after_escape = "\"\\n some text\tmore\"";
    let error = strict(tab_after_escape).unwrap_err();
    assert_eq!(
        (error.kind, error.offset),
        (SyntaxErrorKind::ControlCharacterInString, 13)
    );
    assert_eq!(
        lenient(tab_after_escape).unwrap(),
        Value::str("\n some text\tmore")
    );
    assert_eq!(
        strict(r#""\n unterminated after an escape"#)
            .unwrap_err()
            .kind,
        SyntaxErrorKind::UnterminatedString
    );
}

#[test]
fn duplicate_keys_keep_first_position_and_last_value() {
    assert_eq!(
        strict(r#"{"a": 1, "b": 2, "a": 3}"#).unwrap(),
        Value::object([("a", Value::Int(3)), ("b", Value::Int(2))])
    );
}

#[test]
fn escaped_keys_survive_nested_values() {
    assert_eq!(
        strict(r#"{"k\u0065y": {"in\nner": "v\"al"}}"#).unwrap(),
        Value::object([("key", Value::object([("in\nner", Value::str("v\"al"))]))])
    );
}

#[test]
fn syntax_errors_have_offsets() {
    let e = strict(r#"{"a": 1 "b": 2}"#).unwrap_err();
    assert_eq!(e.kind, SyntaxErrorKind::ExpectedCommaOrBrace);
    assert_eq!(e.offset, 8);
    assert_eq!(
        strict("[1,]").unwrap_err().kind,
        SyntaxErrorKind::ExpectedValue
    );
    assert_eq!(
        strict("{} x").unwrap_err().kind,
        SyntaxErrorKind::TrailingCharacters
    );
    assert_eq!(
        strict("NaN").unwrap_err().kind,
        SyntaxErrorKind::ExpectedValue
    );
    assert_eq!(
        strict("01").unwrap_err().kind,
        SyntaxErrorKind::TrailingCharacters
    );
    assert_eq!(
        strict("1.").unwrap_err().kind,
        SyntaxErrorKind::UnexpectedEnd
    );
    assert_eq!(
        strict("tru").unwrap_err().kind,
        SyntaxErrorKind::UnexpectedEnd
    );
    assert_eq!(strict("").unwrap_err().kind, SyntaxErrorKind::UnexpectedEnd);
}

#[test]
fn depth_limit_is_an_error_not_a_crash() {
    let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
    assert!(strict(&ok).is_ok());
    let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
    assert_eq!(strict(&deep).unwrap_err().kind, SyntaxErrorKind::TooDeep);
    let huge = "{".repeat(1_000_000);
    assert!(strict(&huge).is_err());
}

#[test]
fn lenient_repairs() {
    let expected = Value::object([
        ("a", Value::Int(1)),
        ("b", Value::array(vec![Value::Bool(true)])),
    ]);
    assert_eq!(lenient("{'a': 1, b: [True,],}").unwrap(), expected);
    assert_eq!(lenient(r#"{"a": 1, "b": [true"#).unwrap(), expected);
    assert_eq!(
        lenient("{\"a\": \"x\ny\"}").unwrap(),
        Value::object([("a", Value::str("x\ny"))])
    );
    assert_eq!(
        lenient("[None, False]").unwrap(),
        Value::array(vec![Value::Null, Value::Bool(false)])
    );
    // Repair never invents values.
    assert!(lenient(r#"{"a": tr"#).is_err());
    assert!(lenient(r#"{"a": "unterminated"#).is_err());
    assert!(lenient(r#"{"a": "#).is_err());
}

#[test]
fn prefix_parse_reports_end() {
    let (value, end) =
        parse_prefix("  [1, 2] tail", &mut ValueBuilder, ParseOptions::default()).unwrap();
    assert_eq!(value, Value::array(vec![Value::Int(1), Value::Int(2)]));
    assert_eq!(end, 8);
}

#[test]
fn compact_writer_round_trips() {
    let text = r#"{"a":[1,2.5,-0.0,"x\"y"],"b":{"c":null,"d":true},"e":1e+16}"#;
    let value = strict(text).unwrap();
    assert_eq!(to_compact_json(&value), text);
}

#[test]
fn values_rebuild_exactly_with_any_builder() {
    let text =
        r#"{"a": [1, -2.5, "x\ud800", {"b": null, "c": true}], "big": 123456789012345678901}"#;
    let value = strict(text).unwrap();
    let Ok(rebuilt) = value.build(&mut ValueBuilder);
    assert_eq!(rebuilt, value);
    assert_eq!(to_compact_json(&rebuilt), to_compact_json(&value));
}
