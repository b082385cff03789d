use super::*;

fn strict(text: &str) -> Result<Value, SyntaxError> {
    parse(text, &mut ValueBuilder, ParseOptions::default()).map_err(|e| match e {
        ParseError::Syntax(s) => s,
        ParseError::Build(never) => match never {},
    })
}

fn lenient(text: &str) -> Result<Value, SyntaxError> {
    parse(text, &mut ValueBuilder, ParseOptions::json(true)).map_err(|e| match e {
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

/// Builders that defer objects get them as checked text where a caller can check them, and
/// every read of the result is that of the built object.
mod deferred {
    use super::*;

    #[derive(Default)]
    struct Fields(Vec<(String, Value)>);

    impl ObjectVisitor<DeferringBuilder> for Fields {
        fn action(&mut self, key: &str) -> MemberAction {
            if key == "skip" {
                MemberAction::Skip
            } else {
                MemberAction::Build
            }
        }
        fn built(&mut self, key: &str, value: Value) {
            self.0.push((key.to_owned(), value));
        }
        fn text(&mut self, _: &str, _: MemberText) {}
    }

    const OBJECTS: [&str; 6] = [
        "{}",
        r#"{"a": 1}"#,
        r#"{"a": [1, {"b": null}], "c": "é\n", "d": 1.5e3, "e": 123456789012345678901234567890}"#,
        r#"{"k": 1, "k": 2}"#,
        r#"{"s": "\ud800"}"#,
        r#"{ "spaced" : { } }"#,
    ];

    #[test]
    fn a_deferred_object_reads_and_compares_as_the_built_one() {
        for json in OBJECTS {
            let built = strict(json).unwrap();
            let deferred = DeferringBuilder.checked_object(json).unwrap();
            assert!(matches!(deferred, Value::Deferred(_)), "{json}");
            assert_eq!(deferred, built, "{json}");
            assert_eq!(built, deferred, "{json}");
            assert_eq!(deferred.kind(), JsonKind::Object);
            assert_eq!(deferred.entries(), built.entries(), "{json}");
            assert_eq!(deferred.get("a"), built.get("a"), "{json}");
            assert_eq!(
                to_compact_json(&deferred),
                to_compact_json(&built),
                "{json}"
            );
            assert_eq!(deferred.build(&mut ValueBuilder).unwrap(), built);
        }
        let one = DeferringBuilder.checked_object(r#"{"a": 1}"#).unwrap();
        let other = DeferringBuilder.checked_object(r#"{"a": 2}"#).unwrap();
        assert_ne!(one, other);
        assert_ne!(one, Value::Null);
    }

    #[test]
    fn only_checked_objects_are_deferred() {
        let text = r#"{"x": {"a": 1}, "y": [1], "z": "{}", "skip": {}, "w": {"a": 1,}}"#;
        assert!(parse_object_with(
            text,
            &mut DeferringBuilder,
            ParseOptions::default(),
            &mut Fields::default()
        )
        .is_err());
        let text = r#"{"x": {"a": 1}, "y": [1], "z": "{}", "skip": {}}"#;
        let mut fields = Fields::default();
        let end = parse_object_with(
            text,
            &mut DeferringBuilder,
            ParseOptions::default(),
            &mut fields,
        );
        assert_eq!(end.unwrap(), Some(text.len()));
        let kinds: Vec<(&str, bool)> = fields
            .0
            .iter()
            .map(|(k, v)| (k.as_str(), matches!(v, Value::Deferred(_))))
            .collect();
        assert_eq!(kinds, [("x", true), ("y", false), ("z", false)]);
        assert_eq!(fields.0[0].1, strict(r#"{"a": 1}"#).unwrap());
        // A builder that does not defer builds, and is never offered checked text.
        let offset = deferrable_object(&ValueBuilder, text, 6, 1);
        assert_eq!(offset, None);
        assert_eq!(deferrable_object(&DeferringBuilder, text, 6, 1), Some(14));
        assert_eq!(
            deferrable_object(&DeferringBuilder, text, 0, MAX_DEPTH - 1),
            None
        );
    }

    #[test]
    fn the_default_checked_object_builds() {
        for json in OBJECTS {
            assert_eq!(
                ValueBuilder.checked_object(json).unwrap(),
                strict(json).unwrap()
            );
        }
    }
}

/// Runs of every length between escapes, ending anywhere near the end of the input (where no
/// whole 16-byte block is left to copy), decode as serde_json decodes them.
#[test]
fn runs_between_escapes_of_every_length() {
    for run in 0..40 {
        for escapes in 1..4 {
            let piece = format!("{}\\n{}é", "a".repeat(run), "\\\"".repeat(escapes));
            for repeats in 1..3 {
                let json = format!("\"{}{}\"", piece.repeat(repeats), "b".repeat(run % 7));
                let want: String = serde_json::from_str(&json).unwrap();
                assert_eq!(strict(&json).unwrap(), Value::str(&want), "{json}");
                let padded = format!("[{json}, 1]");
                let want = Value::array(vec![Value::str(&want), Value::Int(1)]);
                assert_eq!(strict(&padded).unwrap(), want, "{padded}");
            }
        }
    }
}

/// Builds [`Value`]s, but refuses integers of more than `limit` digits (as Python does past
/// its int-string limit) and fails outright on the string "fatal" (as on a `MemoryError`).
struct Picky {
    limit: usize,
}

#[derive(Debug, PartialEq)]
enum PickyError {
    Refused(Refusal),
    Fatal,
}

impl JsonBuilder for Picky {
    type Value = Value;
    type Object = Vec<(Key, Value)>;
    type Array = Vec<Value>;
    type Error = PickyError;

    fn refusal(&self, error: &PickyError) -> Option<Refusal> {
        match error {
            PickyError::Refused(refusal) => Some(*refusal),
            PickyError::Fatal => None,
        }
    }
    fn null(&mut self) -> Result<Value, PickyError> {
        Ok(Value::Null)
    }
    fn boolean(&mut self, value: bool) -> Result<Value, PickyError> {
        Ok(Value::Bool(value))
    }
    fn int(&mut self, value: i64) -> Result<Value, PickyError> {
        Ok(Value::Int(value))
    }
    fn big_int(&mut self, digits: &str) -> Result<Value, PickyError> {
        let count = digits.trim_start_matches('-').len();
        if count > self.limit {
            return Err(PickyError::Refused(Refusal::IntegerTooLong {
                digits: count,
                limit: self.limit,
            }));
        }
        Ok(Value::BigInt(digits.into()))
    }
    fn float(&mut self, value: f64) -> Result<Value, PickyError> {
        Ok(Value::Float(value))
    }
    fn string(&mut self, value: JsonStr<'_>) -> Result<Value, PickyError> {
        if value.as_str() == Some("fatal") {
            return Err(PickyError::Fatal);
        }
        let Ok(value) = ValueBuilder.string(value);
        Ok(value)
    }
    fn new_object(&mut self) -> Result<Self::Object, PickyError> {
        Ok(Vec::new())
    }
    fn object_insert(
        &mut self,
        object: &mut Self::Object,
        key: JsonStr<'_>,
        value: Value,
    ) -> Result<(), PickyError> {
        let Ok(()) = ValueBuilder.object_insert(object, key, value);
        Ok(())
    }
    fn finish_object(&mut self, object: Self::Object) -> Result<Value, PickyError> {
        let Ok(value) = ValueBuilder.finish_object(object);
        Ok(value)
    }
    fn new_array(&mut self) -> Result<Self::Array, PickyError> {
        Ok(Vec::new())
    }
    fn array_push(&mut self, array: &mut Self::Array, value: Value) -> Result<(), PickyError> {
        array.push(value);
        Ok(())
    }
    fn finish_array(&mut self, array: Self::Array) -> Result<Value, PickyError> {
        Ok(Value::array(array))
    }
}

/// A value the builder refuses is reported at its own offset, like a syntax error (so the call
/// holding it fails alone); any other builder failure stops the parse as a build error.
#[test]
fn refused_values_are_errors_at_their_offset_and_other_failures_stop_the_parse() {
    let mut picky = Picky { limit: 25 };
    let long = "1".repeat(30);
    let text = format!(r#"{{"a": [1, -{long}], "b": 2}}"#);
    let error = parse(&text, &mut picky, ParseOptions::default()).unwrap_err();
    let refusal = Refusal::IntegerTooLong {
        digits: 30,
        limit: 25,
    };
    let ParseError::Syntax(error) = error else {
        panic!("{error:?}")
    };
    assert_eq!(error.kind, SyntaxErrorKind::Refused(refusal));
    assert!(error.kind.is_refusal());
    assert_eq!(error.offset, text.find('-').unwrap());
    assert_eq!(
        error.kind.message(),
        "integer of 30 digits exceeds the limit of 25 digits for integer conversion \
         (Python's sys.set_int_max_str_digits)"
    );
    let short = format!("[{}]", "1".repeat(25));
    assert!(parse(&short, &mut picky, ParseOptions::default()).is_ok());
    let fatal = parse(r#"[1, "fatal"]"#, &mut picky, ParseOptions::default());
    assert!(matches!(fatal, Err(ParseError::Build(PickyError::Fatal))));
}

/// Reading an object member by member, a refused member is reported the same way.
#[test]
fn a_refused_member_read_by_a_visitor_is_an_error_at_its_offset() {
    struct Arguments(Option<Value>);
    impl ObjectVisitor<Picky> for Arguments {
        fn action(&mut self, key: &str) -> MemberAction {
            if key == "arguments" {
                MemberAction::Build
            } else {
                MemberAction::Skip
            }
        }
        fn built(&mut self, _: &str, value: Value) {
            self.0 = Some(value);
        }
        fn text(&mut self, _: &str, _: MemberText) {}
    }
    let long = "7".repeat(40);
    let text = format!(r#"{{"skipped": {long}, "arguments": {{"n": {long}}}}}"#);
    let mut visitor = Arguments(None);
    let error = parse_object_with(
        &text,
        &mut Picky { limit: 30 },
        ParseOptions::default(),
        &mut visitor,
    );
    let Err(ParseError::Syntax(error)) = error else {
        panic!("{error:?}")
    };
    assert!(error.kind.is_refusal());
    assert_eq!(error.offset, text.rfind('7').unwrap() + 1 - 40);
}

#[test]
fn model_text_reads_raw_whitespace_in_strings_only() {
    let model_text = |text: &str, repair: bool| {
        parse(text, &mut ValueBuilder, ParseOptions::model_text(repair)).map_err(|e| match e {
            ParseError::Syntax(s) => s.kind,
            ParseError::Build(never) => match never {},
        })
    };
    let raw = "{\"a\": \"x\n\ty\r\", \"b\": \"\\n\"}";
    let want = Value::object([
        ("a", Value::Str("x\n\ty\r".into())),
        ("b", Value::Str("\n".into())),
    ]);
    assert_eq!(model_text(raw, false), Ok(want.clone()));
    assert_eq!(lenient(raw), Ok(want));
    assert_eq!(
        strict(raw).map_err(|e| e.kind),
        Err(SyntaxErrorKind::ControlCharacterInString)
    );
    // Other control characters need repair; a string cut short stays an error.
    for control in ['\0', '\u{1}', '\u{8}', '\u{c}', '\u{1b}', '\u{1f}'] {
        let text = format!("\"x{control}y\"");
        assert_eq!(
            model_text(&text, false),
            Err(SyntaxErrorKind::ControlCharacterInString)
        );
        assert_eq!(
            model_text(&text, true),
            Ok(Value::Str(format!("x{control}y").into()))
        );
    }
    assert_eq!(
        model_text("\"x\ny", false),
        Err(SyntaxErrorKind::UnterminatedString)
    );
}

#[test]
fn tool_arguments_refuse_a_number_beyond_any_float() {
    let arguments = |text: &str| {
        parse(text, &mut ValueBuilder, ParseOptions::json(false)).map_err(|e| match e {
            ParseError::Syntax(s) => (s.kind, s.offset),
            ParseError::Build(never) => match never {},
        })
    };
    let out_of_range = SyntaxErrorKind::NumberOutOfRange;
    assert_eq!(arguments("1e400"), Err((out_of_range, 0)));
    assert_eq!(
        arguments(r#"{"a": [1, -1.5e+999]}"#),
        Err((out_of_range, 10))
    );
    let digits = format!("{}.5", "9".repeat(400));
    assert_eq!(arguments(&digits), Err((out_of_range, 0)));
    // The largest float, and an underflow to zero, are numbers.
    assert_eq!(
        arguments("1.7976931348623157e308"),
        Ok(Value::Float(f64::MAX))
    );
    assert_eq!(arguments("1e-400"), Ok(Value::Float(0.0)));
    // `json.loads` (the default options) reads infinity.
    assert_eq!(strict("1e400").unwrap(), Value::Float(f64::INFINITY));
}
